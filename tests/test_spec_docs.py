"""The specification in docs/spec/ is what the code cites (docs/spec/README.md).

Every ``docs/spec/<page>.md "<Section>"`` citation in queries/, shapes/, src/,
README.md and docs/ names an existing page and one of its headings; every
library query cites the specification in its header; nothing cites the old
``spec/<page>.md`` paths of the team's unshipped shared folder. These tests
read files only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

pytestmark = pytest.mark.metadata

ROOT = Path(__file__).parents[1]
SPEC_DIR = ROOT / "docs" / "spec"
QUERY_DIR = ROOT / "queries"
PAGES = (
    "README.md",
    "ledger.md",
    "acceptance.md",
    "records.md",
    "interventions.md",
    "adjudication.md",
)
NOT_YET_BUILT: tuple[str, ...] = ()
STATUS = "Status: specified, not yet implemented (issue 18 / issue 19)"

# Where citations are looked for, and the text files there.
SCANNED = [ROOT / "queries", ROOT / "shapes", ROOT / "src", ROOT / "docs", ROOT / "README.md"]
SUFFIXES = {".rq", ".ru", ".ttl", ".py", ".md", ".json", ".txt"}
# Everywhere a stale path could hide (tests and benchmarks too).
ALL_TEXT = [*SCANNED, ROOT / "tests", ROOT / "bench", ROOT / "ontology", ROOT / "examples"]

# A line break inside a citation may carry a comment marker (SPARQL, Turtle).
_GAP = r"[ \t]*(?:\n[ \t]*#?[ \t]*)?"
_SECTION = r'"([^"\n]+)"'
_MORE = rf"(?:{_GAP}(?:,[ \t]*and|,|and|;){_GAP}{_SECTION})"
# docs/spec/acceptance.md "Eligibility" (the page may be in backticks; further
# sections of the same page may follow: "Metrics", "Counts" and "Intervals").
CITATION = re.compile(rf"docs/spec/([\w.-]+\.md)`?(?:{_GAP}{_SECTION}((?:{_MORE})*))?")
# Inside docs/: `acceptance.md` "Coverage", `../model.md` "Identifiers".
SIBLING = re.compile(rf"`((?:\.\./)?[\w.-]+\.md)`{_GAP}{_SECTION}((?:{_MORE})*)")
# The shared folder's paths, not preceded by docs/ (or any other path part).
STALE = re.compile(r"(?<![\w/.-])spec/(?:acceptance|ledger|interventions|adjudication)\.md")


def _files(roots: list[Path]) -> Iterator[Path]:
    for root in roots:
        if root.is_file():
            yield root
            continue
        for path in sorted(root.rglob("*")):
            if (
                path.is_file()
                and path.suffix in SUFFIXES
                and ".egg-info" not in str(path)
                and "__pycache__" not in path.parts
            ):
                yield path


def _label(path: Path) -> str:
    return str(path.relative_to(ROOT))


@cache
def headings(page: Path) -> frozenset[str]:
    """The headings of a Markdown page (outside fenced code), without the ``#`` marks."""
    found = []
    fenced = False
    for line in page.read_text("utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            found.append(line.lstrip("#").strip())
    return frozenset(found)


def _sections(match: re.Match[str]) -> list[str]:
    """The section names a citation match quotes, first and following."""
    first, more = match.group(2), match.group(3) or ""
    return ([first] if first else []) + re.findall(_SECTION, more)


def citations(path: Path) -> Iterator[tuple[Path, str | None]]:
    """(cited page, cited section or None) for each citation in ``path``."""
    text = path.read_text("utf-8")
    for match in CITATION.finditer(text):
        page = SPEC_DIR / match.group(1)
        sections = _sections(match)
        if not sections:
            yield page, None
        for section in sections:
            yield page, section
    if path.is_relative_to(ROOT / "docs"):
        for match in SIBLING.finditer(text):
            page = (path.parent / match.group(1)).resolve()
            if page.is_relative_to(ROOT / "docs"):
                for section in _sections(match):
                    yield page, section


def test_every_page_exists_with_unique_headings() -> None:
    for name in PAGES:
        page = SPEC_DIR / name
        assert page.is_file(), f"docs/spec/{name} is missing"
        lines = page.read_text("utf-8").splitlines()
        fenced = False
        seen: list[str] = []
        for line in lines:
            if line.startswith("```"):
                fenced = not fenced
            elif not fenced and re.match(r"#{1,6} ", line):
                seen.append(line.lstrip("#").strip())
        duplicates = sorted({h for h in seen if seen.count(h) > 1})
        assert not duplicates, (
            f"docs/spec/{name}: headings are citation anchors; duplicated: {duplicates}"
        )


def test_index_lists_every_page() -> None:
    index = (SPEC_DIR / "README.md").read_text("utf-8")
    on_disk = {p.name for p in SPEC_DIR.glob("*.md")} - {"README.md"}
    listed = set(re.findall(r"\]\(([\w.-]+\.md)\)", index))
    assert on_disk == listed, f"docs/spec/README.md must list exactly the pages: {on_disk ^ listed}"


@pytest.mark.parametrize("name", NOT_YET_BUILT)
def test_unbuilt_pages_say_so(name: str) -> None:
    text = (SPEC_DIR / name).read_text("utf-8")
    assert STATUS in text.split("\n## ", 1)[0], f"docs/spec/{name} must open with {STATUS!r}"


def test_citations_name_existing_pages_and_sections() -> None:
    bad = []
    count = 0
    for path in _files(SCANNED):
        for page, section in citations(path):
            count += 1
            if not page.is_file():
                bad.append(f"{_label(path)}: no page {_label(page)}")
            elif section is not None and section not in headings(page):
                bad.append(f'{_label(path)}: {_label(page)} has no section "{section}"')
    assert count > 50, "the citation pattern no longer finds the citations"
    assert not bad, "\n".join(bad)


def test_citation_pattern() -> None:
    """The pattern reads the spellings the project uses, and only those."""
    sample = (
        '# spec: docs/spec/acceptance.md "Metrics", docs/spec/records.md "Arithmetic"\n'
        'docs/spec/acceptance.md "Metrics", "Counts", "Whole answer"\nand "Intervals"; x\n'
        'see `docs/spec/ledger.md` "Record basics" and docs/spec/records.md). "Not this"\n'
    )
    found = [(m.group(1), _sections(m)) for m in CITATION.finditer(sample)]
    assert found == [
        ("acceptance.md", ["Metrics"]),
        ("records.md", ["Arithmetic"]),
        ("acceptance.md", ["Metrics", "Counts", "Whole answer", "Intervals"]),
        ("ledger.md", ["Record basics"]),
        ("records.md", []),
    ]


def _header(path: Path) -> str:
    lines = []
    for line in path.read_text("utf-8").splitlines():
        if not line.startswith("#"):
            break
        lines.append(line)
    return "\n".join(lines)


@pytest.mark.parametrize(
    "name", sorted(p.name for p in QUERY_DIR.iterdir() if p.suffix in (".rq", ".ru"))
)
def test_every_query_cites_the_spec(name: str) -> None:
    header = _header(QUERY_DIR / name)
    cited = [m for m in CITATION.finditer(header) if _sections(m)]
    assert cited, f'queries/{name}: its header cites no docs/spec/<page>.md "<Section>"'
    fields = [
        m.group(1)
        for line in header.splitlines()
        if (m := re.match(r"#\s*(id|description|parameters|returns):", line))
    ]
    assert fields == ["id", "description", "parameters", "returns"], (
        f"queries/{name}: header fields out of order: {fields}"
    )


def test_no_stale_spec_paths() -> None:
    stale = [
        f"{_label(path)}:{text[: m.start()].count(chr(10)) + 1}: {m.group(0)}"
        for path in _files(ALL_TEXT)
        if path != Path(__file__)
        for text in [path.read_text("utf-8")]
        for m in STALE.finditer(text)
    ]
    assert not stale, "cite docs/spec/<page>.md instead:\n" + "\n".join(stale)


def _cited_in_text(text: str) -> list[tuple[Path, str | None]]:
    found: list[tuple[Path, str | None]] = []
    for match in CITATION.finditer(text):
        page = SPEC_DIR / match.group(1)
        sections = _sections(match)
        found += [(page, s) for s in sections] if sections else [(page, None)]
    return found


def test_outputs_cite_existing_sections(tmp_path: Path) -> None:
    """What `explain`, `gate` and the report print cites headings that exist (the
    citations are built at run time, so the scan of the sources cannot see them)."""
    import hopgate
    from hopgate.report.pages import render

    store = hopgate.open_store(None)
    hopgate.load(store, ROOT / "examples" / "cedar.yaml")
    hopgate.evaluate(store, run="sys-a")
    texts = []
    for row in hopgate.verdicts(store, run="sys-a"):
        explanation = hopgate.explain(store, row.output)
        texts.append(str(explanation.as_dict()))
    texts.append(str(hopgate.gate(store, run="sys-a")))
    report = hopgate.build_report(store, run="sys-a")
    texts += [render(report, fmt) for fmt in ("json", "md", "html")]
    cited = [c for text in texts for c in _cited_in_text(text)]
    assert len(cited) > 10, "the outputs no longer cite the spec"
    bad = sorted(
        {f"{_label(page)} {section!r}" for page, section in cited if not page.is_file()}
        | {
            f'{_label(page)} has no section "{section}"'
            for page, section in cited
            if page.is_file() and section is not None and section not in headings(page)
        }
    )
    assert not bad, "\n".join(bad)


# docs/rag-format.md "Files", docs/security.md "Bounded input", README "Quick start":
# the other pages' sections are cited as the spec's are, and must exist as well.
DOC_CITATION = re.compile(
    rf"(?<![\w/.-])docs/((?!spec/)[\w./-]+\.md)`?(?:{_GAP}{_SECTION}((?:{_MORE})*))?"
)
README_CITATION = re.compile(rf"(?<![\w/.-])README(?:\.md)?`?{_GAP}{_SECTION}((?:{_MORE})*)")
#: Inside docs/: [rag-format.md](rag-format.md) "answers: one run of your pipeline".
LINK_CITATION = re.compile(rf"\]\(((?:\.\./)?[\w./-]+\.md)\){_GAP}{_SECTION}((?:{_MORE})*)")


def test_citations_of_the_other_pages_name_existing_sections() -> None:
    bad = []
    count = 0
    for path in _files(SCANNED):
        text = path.read_text("utf-8")
        cited = [(ROOT / "docs" / m.group(1), _sections(m)) for m in DOC_CITATION.finditer(text)]
        cited += [
            (ROOT / "README.md", [m.group(1), *re.findall(_SECTION, m.group(2) or "")])
            for m in README_CITATION.finditer(text)
        ]
        if path.suffix == ".md":
            cited += [
                ((path.parent / m.group(1)).resolve(), _sections(m))
                for m in LINK_CITATION.finditer(text)
            ]
        for page, sections in cited:
            count += 1
            if not page.is_file():
                bad.append(f"{_label(path)}: no page {_label(page)}")
            bad += [
                f'{_label(path)}: {_label(page)} has no section "{section}"'
                for section in sections
                if page.is_file() and section not in headings(page)
            ]
    assert count > 50, "the citation pattern no longer finds the citations"
    assert not bad, "\n".join(bad)
