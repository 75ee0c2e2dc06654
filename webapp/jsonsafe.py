"""Bounded JSON: how deeply a request (or a stored value) may nest, checked before parsing.

Python's json module recurses once per level, so "[" * 100000 raised RecursionError (a 500), and a
value that parsed at 977 levels could not be written back out inside a bigger answer (a game that
no read could show). Every body is therefore measured for its nesting depth before json.loads
sees it, by a vectorised scan (numpy) that costs about 5 ms per MB whatever the shape.
"""
from __future__ import annotations

import json

import numpy as np

# The deepest thing the API takes is an import: game -> hands -> hand -> scored -> decomposition
# -> sets -> set, 7 levels; 20 leaves room and stays far below Python's recursion limit.
MAX_DEPTH = 20

_CHUNK = 1 << 20  # bytes scanned at a time: bounded memory for the scan itself
_BRACKET = np.zeros(256, np.int8)
_BRACKET[[ord("["), ord("{")]] = 1
_BRACKET[[ord("]"), ord("}")]] = -1
_MARK = _BRACKET != 0
_MARK[ord('"')] = True  # a quote is a mark whose bracket step is 0


class NotText(ValueError):
    """A string holding half of a UTF-16 surrogate pair (JSON's "\\ud800" escape): valid JSON, but
    no text; it could be neither stored, hashed nor written back out (a 500 on every route)."""

    def __init__(self):
        super().__init__("a string holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is no text")


class TooDeep(ValueError):
    def __init__(self, limit: int):
        super().__init__(f"the JSON is nested too deeply; at most {limit} levels")
        self.limit = limit


def text_depth(text: str | bytes) -> int:
    """The deepest bracket nesting of JSON text, outside strings, in one vectorised pass.

    Escaped backslashes and quotes are dropped first, so every quote left opens or closes a
    string; an even count of quotes before a bracket means it is outside strings. UTF-8 never
    uses bytes below 128 inside a multi-byte character, so the ASCII bytes are exact.
    """
    data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    arr = np.frombuffer(data, np.uint8)
    quotes = level = deepest = 0
    for start in range(0, len(arr), _CHUNK):
        chunk = arr[start:start + _CHUNK]
        marks = np.flatnonzero(_MARK[chunk])  # only quotes and brackets matter
        if not len(marks):
            continue
        kinds = _BRACKET[chunk[marks]]
        inside = (np.cumsum(kinds == 0, dtype=np.int32) + quotes) % 2 == 1
        levels = np.cumsum(np.where(inside, 0, kinds), dtype=np.int32) + level
        deepest = max(deepest, int(levels.max()))
        quotes, level = quotes + int((kinds == 0).sum()), int(levels[-1])
    return deepest


def depth(value) -> int:
    """Nesting depth of a parsed value (a scalar is 0, [] is 1), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            level += 1
            deepest = max(deepest, level)
            stack.extend((child, level) for child in item if isinstance(child, (dict, list)))
    return deepest


def check_text(value):
    """value, checked: NotText where any of its strings (keys included) is no Unicode text.

    >>> check_text({"a": ["ok", "東"]})
    {'a': ['ok', '東']}
    >>> check_text(json.loads('{"a": "\\\\ud800"}'))
    Traceback (most recent call last):
    ...
    webapp.jsonsafe.NotText: a string holds a lone UTF-16 surrogate (\\ud800-\\udfff), which is no text
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str) and not item.isascii():
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise NotText() from None
    return value


def loads(text: str, limit: int = MAX_DEPTH, **kwargs):
    """json.loads, refusing (TooDeep) any text nested more than `limit` levels."""
    if text_depth(text) > limit:
        raise TooDeep(limit)
    try:
        return json.loads(text, **kwargs)
    except RecursionError:  # cannot happen after the scan; kept so it is never a 500
        raise TooDeep(limit) from None
