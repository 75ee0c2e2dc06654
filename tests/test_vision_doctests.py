"""The examples in vision/'s docstrings (screen rules, readers' merge, blank faces) stay true:
`make test` runs the doctests of tests/ and engine/ only."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import vision

MODULES = [m.name for m in pkgutil.iter_modules(vision.__path__) if m.name != "__main__"]


@pytest.mark.parametrize("name", MODULES)
def test_vision_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(f"vision.{name}"))
    assert result.failed == 0


def test_the_rule_modules_have_examples():
    counts = {name: doctest.testmod(importlib.import_module(f"vision.{name}")).attempted
              for name in ("blanks", "screen", "flowers", "group_readers")}
    assert all(n > 0 for n in counts.values()), counts
