"""Count the suite's test items by kind and by folder, as tests/README.md reports them.

A test is **conformance** when marked so (it holds hopgate to an outside
standard, suite or scorer), **metadata** when marked so (it checks docs,
ontology, shapes or code metadata), and **behaviour** otherwise. Items marked
``slow`` (CI only) and ``benchmark`` (HOPGATE_BENCHMARKS=1 only) are counted
too and listed apart. Nothing runs: the suite is only collected.

    python tests/count_kinds.py        # the Markdown table of tests/README.md
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections import Counter
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
KINDS = ("behaviour", "metadata", "conformance")


def kind(item: pytest.Item) -> str:
    """The kind of one collected item (its marker, else behaviour)."""
    for marker in ("conformance", "metadata"):
        if item.get_closest_marker(marker) is not None:
            return marker
    return "behaviour"


def folder(item: pytest.Item) -> str:
    """The item's folder under tests/ (``tests`` for the shared root)."""
    parent = Path(str(item.path)).parent
    return "tests" if parent == TESTS else f"tests/{parent.relative_to(TESTS).as_posix()}"


class _Count:
    def __init__(self) -> None:
        self.by_folder: dict[str, Counter[str]] = {}
        self.gated: Counter[str] = Counter()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            self.by_folder.setdefault(folder(item), Counter())[kind(item)] += 1
            for gate in ("slow", "benchmark"):
                if item.get_closest_marker(gate) is not None:
                    self.gated[gate] += 1


def table(count: _Count) -> str:
    """The counts as a Markdown table: a row per folder and a total."""
    lines = ["| folder | " + " | ".join(KINDS) + " | all |", "|---" * (len(KINDS) + 2) + "|"]
    total: Counter[str] = Counter()
    for name in sorted(count.by_folder):
        found = count.by_folder[name]
        total.update(found)
        cells = [str(found[k]) for k in KINDS] + [str(sum(found.values()))]
        lines.append(f"| {name}/ | " + " | ".join(cells) + " |")
    cells = [f"**{total[k]}**" for k in KINDS] + [f"**{sum(total.values())}**"]
    lines.append("| all | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(
        f"Of these, {count.gated['slow']} are marked `slow` (run under `CI=true`) and "
        f"{count.gated['benchmark']} `benchmark` (run with `HOPGATE_BENCHMARKS=1`)."
    )
    return "\n".join(lines)


def main() -> int:
    count = _Count()
    listing = io.StringIO()
    with contextlib.redirect_stdout(listing):
        code = pytest.main(
            ["--collect-only", "-q", "-p", "no:cacheprovider", str(TESTS)], plugins=[count]
        )
    if code != 0:
        print(listing.getvalue())
        return int(code)
    print(table(count))
    return 0


if __name__ == "__main__":
    sys.exit(main())
