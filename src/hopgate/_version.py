"""hopgate's version, read from the installed distribution's metadata (pyproject.toml is its one home)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("hopgate")
except PackageNotFoundError:  # a source tree on sys.path, never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
