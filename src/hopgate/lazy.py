"""Names a module gives from modules it imports only when a name is first used (PEP 562).

``hopgate`` and ``hopgate.api`` give their heavy names this way, so that a read
command imports no SHACL, signing, PROV or loader modules it never calls.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(
    module: str, namespace: dict[str, Any], homes: Mapping[str, tuple[str, str]]
) -> Callable[[str], Any]:
    """The ``__getattr__`` of the module named ``module`` whose globals are ``namespace``.

    ``homes`` maps each name it gives to ``(home module, attribute)``: the home
    is imported when the name is first used, and the value kept in
    ``namespace`` (later uses do not come here). Any other name raises
    AttributeError, as a module without ``__getattr__`` does.
    """

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        home, attribute = homes[name]
        found = getattr(importlib.import_module(home), attribute)
        namespace[name] = found
        return found

    return __getattr__


__all__ = ["lazy_getattr"]
