"""The examples in vision/'s docstrings (screen rules, readers' merge, blank faces) stay true:
`make test` runs the doctests of tests/ and engine/ only; adapt's are run here too."""
from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import vision

MODULES = [m.name for m in pkgutil.iter_modules(vision.__path__) if m.name != "__main__"]
# the rule modules whose docstrings carry worked examples: an empty run there means they were lost
WITH_EXAMPLES = {"blanks", "screen", "flowers", "group_readers", "copies"}


@pytest.mark.parametrize("name", MODULES)
def test_vision_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(f"vision.{name}"))
    assert result.failed == 0
    assert result.attempted > 0 or name not in WITH_EXAMPLES


@pytest.mark.parametrize("name", ["training.adapt", "training.adapt_study", "training.model_files"])
def test_adapt_docstring_examples(name):
    """adapt's held check (its parts, how they pool), how the study words it, and how adapt puts
    a model file in place whole."""
    pytest.importorskip("torch")
    result = doctest.testmod(importlib.import_module(name))
    assert result.failed == 0 and result.attempted > 0
