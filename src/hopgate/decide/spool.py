"""What an evaluation's result queries answered, kept on disk until its bundle is written.

An evaluation's answers grow with the number of output claims (a card's
verdict, its citations, route candidates, missing spans; the claim-cases;
the coverage pairs). They are written here row by row as the store answers
(:meth:`hopgate.store.Store.select_rows`) and read back a card at a time, so
the evaluating process holds one card, not the whole evaluation: on a remote
store, its memory stays flat as the store grows (bench/remote.py). The spool
is an SQLite file in the evaluation's temporary folder, removed with it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import groupby
from pathlib import Path
from typing import Any

from hopgate.store import Row

#: The relations a card lists targets under (card-links, missing hops, inadmissible citations).
LINKS = ("cites", "route", "contradiction", "missing", "inadmissible")

_SCHEMA = """
CREATE TABLE verdicts (output TEXT PRIMARY KEY, row TEXT);
CREATE TABLE links (output TEXT, relation TEXT, target TEXT);
CREATE TABLE candidates (output TEXT, evidence_set TEXT, uncited INTEGER, unretrieved INTEGER);
CREATE TABLE truth (output TEXT, row TEXT);
CREATE TABLE cases (case_iri TEXT, claim TEXT, row TEXT, PRIMARY KEY (case_iri, claim));
CREATE TABLE flags (node TEXT, rule TEXT, about TEXT, PRIMARY KEY (node, rule, about));
CREATE TABLE coverage (span TEXT, member TEXT, contains INTEGER, PRIMARY KEY (span, member));
"""


@dataclass
class Card:
    """One output claim's answers: its verdict row and what it lists, by relation."""

    row: Row
    links: dict[str, list[str]] = field(default_factory=lambda: {r: [] for r in LINKS})
    #: (set, uncited, unretrieved) per eligible set of the claim (evaluation-routes.ru).
    candidates: list[tuple[str, int, int]] = field(default_factory=list)
    #: The source truth of its weighed route, a row per member (evaluation-source-truth.rq).
    truth: list[Row] = field(default_factory=list)


def _plain(value: Any) -> Any:
    # JSON keeps str, int, bool and None as they are; a decimal as its text.
    return str(value) if isinstance(value, Decimal) else value


def _dumps(row: Row) -> str:
    return json.dumps({k: _plain(v) for k, v in row.items()})


class Spool:
    """The answers of one evaluation's result queries, in an SQLite file under ``folder``."""

    def __init__(self, folder: Path) -> None:
        self._db = sqlite3.connect(folder / "answers.sqlite", isolation_level=None)
        # Written once, read once, thrown away: no journal, no fsync.
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the file (the caller removes the folder)."""
        self._db.close()

    def _insert(self, table: str, records: Iterable[tuple[Any, ...]]) -> None:
        # A repeated key keeps the last row (as a dict would), so each record
        # is written once and the bundle holds each triple once.
        self._db.execute("BEGIN")
        try:
            records = iter(records)
            sample = next(records, None)
            if sample is not None:
                marks = ", ".join("?" * len(sample))
                statement = f"INSERT OR REPLACE INTO {table} VALUES ({marks})"  # noqa: S608 - fixed names
                self._db.execute(statement, sample)
                self._db.executemany(statement, records)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    # ---- writing, as the store answers -----------------------------------

    def verdicts(self, rows: Iterable[Row]) -> None:
        """One row per output claim: its card's verdict and what it was decided on."""
        self._insert("verdicts", ((str(r["output"]), _dumps(r)) for r in rows))

    def links(self, relation: str, rows: Iterable[Row], target: str = "target") -> None:
        """Targets a card lists under ``relation`` (each row's ``output`` and ``target``)."""
        assert relation in LINKS, relation
        self._insert("links", ((str(r["output"]), relation, str(r[target])) for r in rows))

    def relations(self, rows: Iterable[Row]) -> None:
        """card-links rows: the relation is each row's own (cites, route, contradiction)."""
        self._insert(
            "links", ((str(r["output"]), str(r["relation"]), str(r["target"])) for r in rows)
        )

    def candidates(self, rows: Iterable[Row]) -> None:
        """The eligible sets weighed for each card's routes."""
        self._insert(
            "candidates",
            (
                (str(r["output"]), str(r["set"]), _int(r["uncited"]), _int(r["unretrieved"]))
                for r in rows
            ),
        )

    def truth(self, rows: Iterable[Row]) -> None:
        """The source truth of each card's weighed route: a row per member, or one without."""
        self._insert("truth", ((str(r["output"]), _dumps(r)) for r in rows))

    def claim_cases(self, rows: Iterable[Row]) -> None:
        """One row per (case, required claim)."""
        self._insert("cases", ((str(r["case"]), str(r["claim"]), _dumps(r)) for r in rows))

    def flags(self, rows: Iterable[Row]) -> None:
        """Which admissibility rule each version or span broke."""
        self._insert("flags", ((str(r["node"]), str(r["rule"]), str(r["about"])) for r in rows))

    def coverage(self, rows: Iterable[Row]) -> None:
        """Which delivered spans cover which members, and whether they contain them."""
        self._insert(
            "coverage",
            ((str(r["span"]), str(r["member"]), int(bool(r["contains"]))) for r in rows),
        )

    # ---- reading, a record at a time -------------------------------------

    def count(self, table: str) -> int:
        """How many rows ``table`` holds (``verdicts``: the cards; ``cases``: the claim-cases)."""
        assert table in ("verdicts", "cases"), table
        found = self._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()  # noqa: S608
        return int(found[0])

    def cards(self) -> Iterator[Card]:
        """Each card in the order of its output IRI, with its links and candidates."""
        links = _by_output(
            self._db.execute("SELECT output, relation, target FROM links ORDER BY output")
        )
        candidates = _by_output(
            self._db.execute(
                "SELECT output, evidence_set, uncited, unretrieved FROM candidates ORDER BY output"
            )
        )
        truth = _by_output(self._db.execute("SELECT output, row FROM truth ORDER BY output, rowid"))
        for output, text in self._db.execute("SELECT output, row FROM verdicts ORDER BY output"):
            card = Card(json.loads(text))
            for _, relation, target in links(output):
                card.links[relation].append(target)
            card.candidates = [(s, u, r) for _, s, u, r in candidates(output)]
            card.truth = [json.loads(row) for _, row in truth(output)]
            yield card

    def claim_case_rows(self) -> Iterator[Row]:
        """Each claim-case row."""
        for (text,) in self._db.execute("SELECT row FROM cases ORDER BY case_iri, claim"):
            yield json.loads(text)

    def has_claim_case(self, case: str, claim: str) -> bool:
        """Whether the claim-cases hold (``case``, ``claim``)."""
        found = self._db.execute(
            "SELECT 1 FROM cases WHERE case_iri = ? AND claim = ?", (case, claim)
        ).fetchone()
        return found is not None

    def flag_rows(self) -> Iterator[tuple[str, str, str]]:
        """(node, rule, about) per broken rule."""
        yield from self._db.execute("SELECT node, rule, about FROM flags")

    def coverage_rows(self) -> Iterator[tuple[str, str, bool]]:
        """(span, member, contains) per coverage pair."""
        for span, member, contains in self._db.execute(
            "SELECT span, member, contains FROM coverage"
        ):
            yield span, member, bool(contains)


def _by_output(rows: Iterable[tuple[Any, ...]]) -> Callable[[str], list[tuple[Any, ...]]]:
    """The rows of each output, for rows sorted by output (their first column) and outputs asked in order.

    Rows of an output never asked are skipped (a card-link of an output the
    verdicts query did not list).
    """
    groups = groupby(rows, key=lambda row: row[0])
    current = next(groups, None)

    def of(output: str) -> list[tuple[Any, ...]]:
        nonlocal current
        while current is not None and current[0] < output:
            current = next(groups, None)
        if current is None or current[0] != output:
            return []
        found = list(current[1])
        current = next(groups, None)
        return found

    return of


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) else 0
