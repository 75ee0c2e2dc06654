"""Model files put in place whole: the app may load a model file at any moment.

The app loads a model again when its file changes (webapp/recognizer.py). Written in place, a file
could be read half-written, or be left so by a run stopped mid-write (memory running out on a
Raspberry Pi), and the app would answer 503 until someone restored it. Written beside it and
renamed over it (os.replace: one step on one filesystem), the old file stays whole until the new
one is. A file made elsewhere (a temporary folder, which may be another filesystem, as /tmp on
tmpfs is) is copied beside its place first: a rename across filesystems fails.

    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp()); _ = (d / "m.onnx").write_text("old")
    >>> with replaced(d / "m.onnx") as part:
    ...     _ = part.write_text("new")
    >>> (d / "m.onnx").read_text(), sorted(p.name for p in d.iterdir())
    ('new', ['m.onnx'])
    >>> try:
    ...     with replaced(d / "m.onnx") as part:
    ...         _ = part.write_text("half")
    ...         raise MemoryError
    ... except MemoryError:
    ...     pass
    >>> (d / "m.onnx").read_text(), sorted(p.name for p in d.iterdir())
    ('new', ['m.onnx'])
"""
from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def replaced(path):
    """A path beside `path` (same folder, same suffix: exporters may look at it) to write the new
    file to; when the block ends without an error it replaces `path` in one step, else it goes."""
    path = Path(path)
    part = path.with_name(f".{path.stem}.{os.getpid()}.part{path.suffix}")
    try:
        yield part
        with open(part, "rb+") as f:  # on disk before the rename, as webapp/photos.write_atomic does:
            os.fsync(f.fileno())  # a Pi unplugged just after must not find the name on an empty file
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)


def move_into(src, dst) -> None:
    """The file src put in place at dst whole, wherever src lies."""
    with replaced(dst) as part:
        shutil.copyfile(src, part)
