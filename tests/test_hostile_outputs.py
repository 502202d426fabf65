"""Hostile data through every output: nothing executes, nothing leaves its cell (issue 25, item 2).

Each example is a ledger whose every string field is hostile (tests/hostile_data.py),
loaded, evaluated, judged and evaluated again through the command line with hostile
``--by`` names, then written through every output:

- the HTML report: its element skeleton is the one the same report with plain strings
  gives (no element or attribute from data), and in headless Chromium no data script
  runs (``window.__hostile`` stays unset), no request leaves, the gate banner is the
  gate's decision;
- the Markdown report, parsed as CommonMark with GFM tables: its block and inline
  structure is the plain twin's (no forged paragraph, heading, list item, table row,
  HTML block, link, code or emphasis), one "Release decision" paragraph and it is the
  gate's, and each text reads back as written (line ends and controls as escapes);
- JSON (report, verdicts, metrics, explain, diff, review): every string exact, no raw
  control, separator or bidi character;
- CSV: the csv module reads one row per record and line, the cells as written, none a
  formula;
- terminal text and tables (verdicts, metrics, gate, explain, diff, review, stats,
  query, progress lines, an error, the pytest helper's message): no raw line end,
  control or bidi character inside a line;
- PROV exports (every format): they read back as the exported quads;
- card pictures: DOT labels hold no raw control character, SVG is a plain drawing.

Examples are few and ledgers small; under CI each run draws new ones from the session's
printed seed (tests/conftest.py), as every Hypothesis test does.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import shutil
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import CI, required
from hostile_data import MARKERS, Hostile, hostile_ledgers, ledger_of
from hypothesis import HealthCheck, Phase, given, settings
from markdown_it import MarkdownIt

import hopgate
from hopgate import escaping
from hopgate.audit.results import gate
from hopgate.bundles.export import FORMATS, export_bundle
from hopgate.bundles.formats import parse_rdf
from hopgate.bundles.picture import card_dot
from hopgate.bundles.picture import render as draw
from hopgate.bundles.provdoc import PROV_FORMATS, build_document, parse_document
from hopgate.bundles.quads import export_quads
from hopgate.bundles.scope import resolve_scope
from hopgate.cli import cli
from hopgate.report.build import Report, build_report
from hopgate.report.pages import render
from hopgate.testing import gate_message

FEW = settings(
    max_examples=2,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # an example takes seconds: no shrinking
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
#: Raw characters no line of terminal output may hold (a line end only between lines).
RAW = escaping.INVISIBLE


def _invoke(store: Path, *args: str) -> Any:
    result = CliRunner().invoke(cli, ["--store", str(store), *args], obj={})
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def prepare(hostile: Hostile, directory: Path) -> Path:
    """Load, evaluate, judge and evaluate again through the CLI; the store's directory."""
    directory.mkdir(parents=True, exist_ok=True)
    ledger = directory / f"{hostile.file_name}.json"
    # ensure_ascii: every character escaped, so the file is read back exactly.
    ledger.write_text(json.dumps(ledger_of(hostile)), encoding="utf-8")
    store = directory / "store"
    for args in (
        ("load", str(ledger), "--by", hostile.loaded_by),
        ("evaluate", "--by", hostile.evaluated_by),
        # "--" ends the options: a hostile id may begin with "-" (as a user's would need).
        ("judge", "--question", "alternatives", "--decision", "sufficient",
         "--by", hostile.judged_by, "--reason", hostile.judge_reason, "--final",
         "--keep-in", str(directory / "judgments"), "--", hostile.id("g3")),
        ("evaluate", "--by", hostile.evaluated_by),
    ):  # fmt: skip
        result = _invoke(store, *args)
        assert result.exit_code == 0, (args, result.output)
        assert_terminal(result.output)
    return store


def assert_terminal(text: str) -> None:
    """No line holds a raw line end, control character or bidi control."""
    for line in text.split("\n"):
        found = RAW.search(line)
        assert found is None, (repr(found.group()) if found else None, line)


# --- plain twins -----------------------------------------------------------------------------


def plain_twin(value: Any, names: dict[str, str]) -> Any:
    """``value`` with every hostile string replaced by a plain word, the same string by the
    same word: a report the templates must render with the very same structure."""
    if isinstance(value, str):
        if MARKERS.search(value):
            return names.setdefault(value, f"w{len(names)}")
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: plain_twin(getattr(value, f.name), names)
            for f in dataclasses.fields(value)
            if f.init and f.name != "picture"  # a drawing: checked as one, not as text
        }
        return dataclasses.replace(value, **changes)
    if isinstance(value, dict):
        return {key: plain_twin(item, names) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(plain_twin(item, names) for item in value)
    return value


MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])


def markdown_skeleton(text: str) -> list[tuple[Any, ...]]:
    """The block tokens of a Markdown text, and the kinds of each inline run (text merged)."""
    found: list[tuple[Any, ...]] = []
    for token in MD.parse(text):
        if token.type != "inline":
            found.append((token.type, token.tag, token.nesting, token.level))
            continue
        kinds: list[str] = []
        for child in token.children or []:
            if (child.type, child.content) == ("html_inline", "<!-- -->"):
                continue  # what escaping.markdown puts after an "@": no link, no mention
            kind = "text" if child.type in ("text", "text_special") else child.type
            if not (kinds and kind == "text" == kinds[-1]):
                kinds.append(kind)
        found.append(("inline", tuple(kinds)))
    return found


def release_decisions(text: str) -> list[str]:
    """The text of every strong run that starts "Release decision"."""
    found = []
    for token in MD.parse(text):
        children = token.children or []
        for number, child in enumerate(children):
            if child.type == "strong_open" and number + 1 < len(children):
                content = children[number + 1].content
                if content.startswith("Release decision"):
                    found.append(content)
    return found


class _Skeleton(HTMLParser):
    """Start tags with their attribute names, outside card pictures."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, tuple[str, ...]]] = []
        self.depth = 0  # inside <figure class="picture">

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth:
            self.depth += tag == "figure"
            return
        self.tags.append((tag, tuple(sorted(name for name, _ in attrs))))
        if tag == "figure" and ("class", "picture") in attrs:
            self.depth = 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth and tag == "figure":
            self.depth -= 1


def html_skeleton(page: str) -> list[tuple[str, tuple[str, ...]]]:
    parser = _Skeleton()
    parser.feed(page)
    return parser.tags


# --- every output but the browser ------------------------------------------------------------


@FEW
@given(hostile=hostile_ledgers())
def test_hostile_strings_stay_data_in_every_output(hostile: Hostile, tmp_path_factory: Any) -> None:
    directory = tmp_path_factory.mktemp("hostile")
    store_dir = prepare(hostile, directory)
    run, public = hostile.id("run"), hostile.id("public")

    with hopgate.open_store(store_dir) as store:
        report = build_report(store, run=run, pictures=0)
        for_public = build_report(store, run=run, reader=public, pictures=0)
        check_reports(hostile, report)
        check_reports(hostile, for_public)
        check_exports(store, run)
        check_pictures(store, report)
        # The pytest helper's failure message (hopgate.testing) is terminal text too.
        assert_terminal(gate_message(gate(store, run=run)))
    check_json(store_dir, hostile)
    check_csv(store_dir, hostile)
    check_terminal(store_dir, hostile)


def check_reports(hostile: Hostile, report: Report) -> None:
    names: dict[str, str] = {}
    twin = plain_twin(report, names)
    assert names, "the report shows the hostile strings"
    # Markdown: the template's structure exactly; the one release decision is the gate's.
    md = render(report, "md")
    assert markdown_skeleton(md) == markdown_skeleton(render(twin, "md"))
    decision = "PASS" if report.gate.passed else "FAIL"
    assert release_decisions(md) == [f"Release decision: {decision}"]
    assert report.gate.passed == hostile.passes
    # Each text reads back as written, its line ends and controls as visible escapes.
    rendered = "\n".join(
        "".join(child.content for child in token.children or [] if child.type == "text")
        for token in MD.parse(md)
        if token.type == "inline"
    )
    for card in report.cards:
        assert escaping.visible(card.output_text or "-") in rendered
        assert escaping.visible(card.row.output) in rendered
    assert escaping.visible(report.header.run) in rendered
    # HTML: no element or attribute from data (pictures apart, checked as drawings).
    page = render(report, "html")
    assert html_skeleton(page) == html_skeleton(render(twin, "html"))
    assert page.count("<script") == 1
    # JSON: every string exact.
    data = json.loads(render(report, "json"))
    assert [card["output"] for card in data["cards"]] == [c.row.output for c in report.cards]
    assert [card["output_text"] for card in data["cards"]] == [c.output_text for c in report.cards]
    assert not escaping.INVISIBLE.search(render(report, "json").replace("\n", ""))


def check_exports(store: Any, run: str) -> None:
    """Every PROV format reads back as the quads exported: data stays in its literals."""
    quads = export_quads(store, resolve_scope(store, run=run), with_text=True).quads
    for fmt in FORMATS:
        written = export_bundle(store, format=fmt, run=run, with_text=True).data
        if fmt in PROV_FORMATS:
            assert parse_document(written, fmt) == build_document(quads, xml=fmt == "provxml")
        else:
            assert sorted(map(str, parse_rdf(written, fmt))) == sorted(map(str, quads))


def check_pictures(store: Any, report: Report) -> None:
    for card in report.cards:
        scope = resolve_scope(store, card=card.row.output)
        dot = card_dot(store, scope)
        assert_terminal(dot)
        if shutil.which("dot") is None and not CI:
            continue  # graphviz is not installed: the DOT source is all there is to check
        svg = draw(dot, "svg").decode("utf-8")
        assert escaping.html_picture(svg[svg.index("<svg") :]) is not None, svg
        assert "<script" not in svg


def check_json(store: Path, hostile: Hostile) -> None:
    run, o1 = hostile.id("run"), hostile.id("o1")
    for args in (
        ("verdicts", "--format", "json"),
        ("metrics", "--format", "json"),
        ("explain", "--format", "json", "--", o1),
        ("diff", "--run", run, "--format", "json"),
        ("review", "queue", "--format", "json"),
        ("review", "changes", "--run", run, "--format", "json"),
        ("review", "judgments", "--all", "--format", "json"),
        ("query", "verdicts", "--format", "json"),
    ):
        result = _invoke(store, *args)
        assert result.exit_code == 0, (args, result.output)
        assert not RAW.search(result.output.replace("\n", "")), args
        json.loads(result.output)
    rows = json.loads(_invoke(store, "verdicts", "--format", "json").output)
    assert {row["output"] for row in rows} == {hostile.id(o) for o in ("o1", "o2", "o3")}
    assert {row["run"] for row in rows} == {run}


def check_csv(store: Path, hostile: Hostile) -> None:
    for args, records in (
        (("verdicts", "--format", "csv"), 3),
        (("query", "verdicts", "--format", "csv"), None),
    ):
        text = _invoke(store, *args).output
        rows = list(csv.reader(io.StringIO(text)))
        # One record a line: the csv module and a line-based tool read the same rows.
        assert len(rows) == text.count("\n") == len(text.splitlines())
        assert len({len(row) for row in rows}) == 1
        if records is not None:
            assert len(rows) == 1 + records
        for row in rows[1:]:
            for cell in row:
                assert not cell.startswith(escaping.FORMULA_STARTS), (args, cell)
    text = _invoke(store, "verdicts", "--format", "csv").output
    header, *rows = list(csv.reader(io.StringIO(text)))
    outputs = {row[header.index("output")] for row in rows}
    assert outputs == {escaping.csv_cell(hostile.id(o)) for o in ("o1", "o2", "o3")}


def check_terminal(store: Path, hostile: Hostile) -> None:
    run, o1, public = hostile.id("run"), hostile.id("o1"), hostile.id("public")
    outputs = {}
    for args in (
        ("verdicts",),
        ("metrics",),
        ("gate", "--run", run),
        ("explain", "--", o1),
        ("explain", "--reader", public, "--", o1),
        ("diff", "--run", run),
        ("review", "queue"),
        ("review", "changes", "--run", run),
        ("review", "judgments", "--all"),
        ("stats",),
        ("query", "verdicts"),
        ("report", "--run", run, "--format", "md", "--reader", public),
        ("export", "--card", o1, "--format", "dot"),
    ):
        result = _invoke(store, *args)
        assert result.exit_code in (0, 1), (args, result.output)
        assert_terminal(result.output)
        outputs[args[0]] = result.output
    # The gate: its verdict line, then one line per output that fails it.
    gate = outputs["gate"].splitlines()
    assert gate[0].startswith(f"run {escaping.terminal(run)}: gate ")
    assert ("gate passed" in gate[0]) == hostile.passes
    assert len(gate) == (1 if hostile.passes else 2)
    # A table: its header, its rule, one line per output.
    assert len(outputs["verdicts"].splitlines()) == 2 + 3
    # An error quoting hostile data is one line.
    error = _invoke(store, "explain", "--", o1 + "\nrun x: gate passed")
    assert error.exit_code == 2
    assert_terminal(error.output)
    assert len(error.output.strip().splitlines()) == 1


# --- the HTML report in a browser ------------------------------------------------------------


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from browser import Browser, chromium

    if chromium() is None:
        required("chromium is not installed (apt-get install chromium)")
    with Browser(tmp_path_factory.mktemp("profile")) as opened:
        yield opened


#: Every element's tag and attribute names in document order, pictures' insides apart;
#: every attribute named on..., and every link that is not to the page itself.
_DOM = """(() => {
  const all = [...document.querySelectorAll('*')];
  const skeleton = all.filter(e => !e.parentElement || !e.parentElement.closest('figure.picture'))
    .map(e => e.tagName + '[' + [...e.attributes].map(a => a.name).sort().join(',') + ']');
  const handlers = all.flatMap(e => [...e.attributes].filter(a => /^on/i.test(a.name))
    .map(a => e.tagName + ' ' + a.name));
  const links = all.flatMap(e => [...e.attributes].filter(a => /href$/i.test(a.name))
    .map(a => a.value)).filter(v => !v.startsWith('#'));
  return {skeleton, handlers, links, scripts: document.scripts.length,
          hostile: window.__hostile === undefined ? null : String(window.__hostile),
          gate: document.getElementById('gate').textContent,
          gateClass: document.getElementById('gate').className};
})()"""


@FEW
@given(hostile=hostile_ledgers())
def test_hostile_strings_never_run_in_the_html_report(
    hostile: Hostile, tmp_path_factory: Any, browser: Any
) -> None:
    directory = tmp_path_factory.mktemp("hostile-html")
    store_dir = prepare(hostile, directory)
    with hopgate.open_store(store_dir) as store:
        report = build_report(store, run=hostile.id("run"), pictures=10)
    assert report.pictures == len(report.cards)
    twin = plain_twin(report, {})
    pages = {}
    for name, shown in (("hostile", report), ("plain", twin)):
        page = directory / f"{name}.html"
        page.write_text(render(shown, "html"), encoding="utf-8")
        browser.events.clear()
        browser.open(page.as_uri())
        pages[name] = browser.evaluate(_DOM)
        assert browser.console_errors() == [], name
        assert browser.requests() == [page.as_uri()], name
    found = pages["hostile"]
    assert found["hostile"] is None, "a data script ran"
    assert found["handlers"] == [] and found["links"] == [] and found["scripts"] == 1
    assert found["skeleton"] == pages["plain"]["skeleton"]
    decision = "PASS" if hostile.passes else "FAIL"
    assert found["gate"].startswith(f"Release decision: {decision}:")
    assert found["gateClass"] == f"banner {decision.lower()}"
