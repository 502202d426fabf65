"""Every docstring example of the package runs and gives what it shows.

The examples are read from the installed package (what a user imports), one
test per module that has any; pyoxigraph runs its docstrings the same way. An
example that reads the worked example finds it through the packaged artefacts.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from types import ModuleType

import pytest

import hopgate

#: The package's modules (``__main__`` runs the command line when imported).
MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(hopgate.__path__, "hopgate.")
    if not info.name.endswith(".__main__")
)
FINDER = doctest.DocTestFinder()


def _examples(module: ModuleType) -> list[doctest.DocTest]:
    return [test for test in FINDER.find(module) if test.examples]


#: The modules with examples; the others have none to run.
DOCTESTED = [name for name in MODULES if _examples(importlib.import_module(name))]


@pytest.mark.metadata
def test_the_examples_cover_the_api_and_each_stage() -> None:
    """The face of the package (hopgate.api) and the stages a newcomer meets first."""
    assert {"hopgate.api", "hopgate.ingest.loader", "hopgate.shacl.graphs"} <= set(DOCTESTED)
    assert len(MODULES) > 60, "walk_packages found too few modules: is hopgate installed?"


@pytest.mark.parametrize("name", DOCTESTED)
def test_docstring_examples(name: str) -> None:
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in _examples(importlib.import_module(name)):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} example(s) of {name} failed (shown above)"
