"""The examples in vision/'s docstrings (screen rules, readers' merge, blank faces) stay true:
`make test` runs the doctests of tests/ and engine/ only."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import vision

MODULES = [m.name for m in pkgutil.iter_modules(vision.__path__) if m.name != "__main__"]
# the rule modules whose docstrings carry worked examples: an empty run there means they were lost
WITH_EXAMPLES = {"blanks", "screen", "flowers", "group_readers"}


@pytest.mark.parametrize("name", MODULES)
def test_vision_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(f"vision.{name}"))
    assert result.failed == 0
    assert result.attempted > 0 or name not in WITH_EXAMPLES
