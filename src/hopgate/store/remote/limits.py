"""What a SPARQL server allows hopgate, found on first contact, and what to change when it does not.

Three things a server's configuration decides silently or late, and which
hopgate must know before it relies on an answer (docs/servers.md):

- **a result-row cap**: Virtuoso sends at most ``[SPARQL] ResultSetMaxRows``
  rows of a SELECT (10,000 as Debian packages it) and triples of a
  CONSTRUCT, with nothing in the answer to say so for a CONSTRUCT. The cap
  is probed with one query of :data:`PROBE_ROWS` empty rows (no data read)
  and, on Virtuoso, read from its ini; larger answers are then read in pages
  (:mod:`hopgate.store.remote.paging`);
- **limits on a query's cost and time** (Virtuoso's
  ``MaxQueryCostEstimationTime`` and ``MaxQueryExecutionTime``, Oxigraph's
  ``--timeout-s``), which refuse or stop a rule step: read where the server
  lets a query read them;
- **the transaction size** a load is published in (Virtuoso's
  ``TransactionAfterImageLimit``).

A server's failure is reported as one sentence naming the setting to change
and the value to use (:func:`explain`), never as the server's text and the
query it refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

#: Rows of the cap probe: a cap below this is found exactly; a server that
#: sends them all (and is not known to have no cap) gets pages of this size.
PROBE_ROWS = 100_001
#: The probe: PROBE_ROWS rows binding nothing (a few bytes each), no data read.
PROBE_QUERY = (
    "SELECT ?nothing WHERE { "
    + " ".join(f"VALUES ?{name} {{ 0 1 2 3 4 5 6 7 8 9 }}" for name in "abcde")
    + " VALUES ?f { 0 1 } } LIMIT "
    + str(PROBE_ROWS)
)
#: Virtuoso's header on a SELECT answer cut at its row cap (none on a CONSTRUCT).
MAX_ROWS_HEADER = "X-SPARQL-MaxRows"

Kind = Literal["virtuoso", "oxigraph", "other"]
#: The server families that say when they cut a SELECT answer (Virtuoso's
#: ``X-SPARQL-MaxRows`` header) or never cut one (Oxigraph).
SAYS_WHEN_CUT: tuple[Kind, ...] = ("virtuoso", "oxigraph")
Severity = Literal["ok", "note", "change"]

#: The Virtuoso settings hopgate reads (section, key, Virtuoso's default when the ini omits it).
VIRTUOSO_SETTINGS = (
    ("SPARQL", "ResultSetMaxRows", None),
    ("SPARQL", "MaxQueryCostEstimationTime", None),
    ("SPARQL", "MaxQueryExecutionTime", None),
    ("Parameters", "TransactionAfterImageLimit", "50000000"),
)
#: Bytes of Virtuoso's transaction log (its after-image) that writing a triple in one
#: transaction takes, at least: 28.4-39.8 measured at 264k triples and 24.4-30.5 at 1.64M,
#: when a load was published by one ``MOVE`` (bench/README.md "6 December, midday").
#: Loads are now written in batches, each its own transaction; an update of more triples
#: than ``TransactionAfterImageLimit`` divided by this (a rule step of an evaluation on
#: the server writes its answers in one) is refused (SR325).
AFTER_IMAGE_BYTES_PER_TRIPLE = 24


def one_transaction_triples(limit: int) -> int:
    """The most triples one update can write when Virtuoso's ``TransactionAfterImageLimit``
    is ``limit`` bytes (its 32-bit maximum, 2,147,483,647, gives some 89M)."""
    return limit // AFTER_IMAGE_BYTES_PER_TRIPLE


#: What hopgate's tests and benchmarks run Virtuoso with (tests/virtuoso.py).
VIRTUOSO_ADVICE = {
    "ResultSetMaxRows": "100000000",
    "MaxQueryCostEstimationTime": "0",
    "MaxQueryExecutionTime": "0",
    "TransactionAfterImageLimit": "2000000000",
}


@dataclass
class Limits:
    """What one server allows, as probed (shared by a store and its scoped views)."""

    #: The server family, from its ``Server`` header.
    kind: Kind = "other"
    #: The ``Server`` header as sent (product and version), or "".
    product: str = ""
    #: Rows (SELECT) or triples (CONSTRUCT) the server sends at most; None: none below the probe.
    row_cap: int | None = None
    #: Virtuoso ini values read through the endpoint, by key (None: not set there).
    settings: dict[str, str | None] = field(default_factory=dict)

    @property
    def page_size(self) -> int:
        """Rows per page when an answer is read in pages: the cap, else the probe's size."""
        return self.row_cap if self.row_cap is not None else PROBE_ROWS

    @property
    def select_cut(self) -> int | None:
        """A SELECT answer this large may have been cut without a word; None: never.

        Virtuoso says when it cuts a SELECT (its ``X-SPARQL-MaxRows``
        header) and Oxigraph has no cap; another server may cut at the cap
        found, or above the probe's size, where nothing was seen.
        """
        if self.kind in SAYS_WHEN_CUT:
            return None
        return self.page_size

    @property
    def construct_cut(self) -> int | None:
        """A CONSTRUCT answer with this many triples may have been cut; None: never.

        Virtuoso cuts a CONSTRUCT at its row cap without a word.
        """
        if self.kind == "oxigraph":
            return None
        if self.kind == "virtuoso":
            return self.row_cap
        return self.page_size

    def setting(self, key: str) -> int | None:
        """A numeric Virtuoso setting as read (None when unread or not a number)."""
        value = self.settings.get(key)
        try:
            return int(float(value)) if value is not None else None
        except ValueError:
            return None


def family(server_header: str) -> Kind:
    """The server family named by an HTTP ``Server`` header."""
    lowered = server_header.lower()
    if "virtuoso" in lowered:
        return "virtuoso"
    if "oxigraph" in lowered:
        return "oxigraph"
    return "other"


def virtuoso_settings_query() -> str:
    """One SELECT reading the Virtuoso settings hopgate needs from the server's own ini."""
    columns = " ".join(
        f"(bif:cfg_item_value(bif:virtuoso_ini_path(), '{section}', '{key}') AS ?{key})"
        for section, key, _ in VIRTUOSO_SETTINGS
    )
    return f"SELECT {columns} WHERE {{ }}"


def read_settings(row: dict[str, object]) -> dict[str, str | None]:
    """The settings of :func:`virtuoso_settings_query`'s row, defaults filled in."""
    found: dict[str, str | None] = {}
    for _section, key, default in VIRTUOSO_SETTINGS:
        value = row.get(key)
        found[key] = str(value).split(";")[0].strip() if value not in (None, "") else default
    return found


@dataclass(frozen=True)
class Finding:
    """One thing checked on a server: what was found, whether it needs a change, and which."""

    #: What was checked ("result rows", "query time", "write permission", ...).
    check: str
    severity: Severity
    #: What was found, one sentence.
    found: str
    #: The setting to change and the value to use ("" when nothing is to change).
    change: str = ""

    def as_dict(self) -> dict[str, str]:
        """The finding as JSON-ready fields."""
        return {
            "check": self.check,
            "severity": self.severity,
            "found": self.found,
            "change": self.change,
        }


def row_cap_finding(limits: Limits) -> Finding:
    """What the result-row cap means for hopgate, and what to set."""
    cap = limits.row_cap
    if limits.kind == "virtuoso":
        where = "[SPARQL] ResultSetMaxRows in virtuoso.ini"
        if cap is None:
            return Finding("result rows", "ok", f"no cap below {PROBE_ROWS - 1:,} rows ({where})")
        return Finding(
            "result rows",
            "note",
            f"answers are cut at {cap:,} rows (and CONSTRUCT answers at {cap:,} triples, "
            "without a word); hopgate reads larger answers in pages, running the query "
            "once per page",
            f"{where}: ResultSetMaxRows = {VIRTUOSO_ADVICE['ResultSetMaxRows']} "
            "(answers read in one request), then restart the server",
        )
    if cap is None:
        if limits.kind == "oxigraph":
            return Finding("result rows", "ok", "no cap (Oxigraph sends every row)")
        return Finding(
            "result rows",
            "ok",
            f"no cap below {PROBE_ROWS - 1:,} rows; larger answers are read in pages of "
            f"{PROBE_ROWS:,}",
        )
    return Finding(
        "result rows",
        "note",
        f"answers are cut at {cap:,} rows; hopgate reads larger answers in pages",
        "the server's result-row limit: raise it above the largest answer hopgate reads",
    )


def virtuoso_findings(limits: Limits, *, client_timeout: float) -> list[Finding]:
    """The cost, time and transaction limits of a Virtuoso server, each with its setting."""
    found: list[Finding] = []
    cost = limits.setting("MaxQueryCostEstimationTime")
    change_cost = (
        "[SPARQL] MaxQueryCostEstimationTime = 0 in virtuoso.ini (no estimate check), "
        "then restart the server"
    )
    if "MaxQueryCostEstimationTime" not in limits.settings:
        found.append(Finding("query cost estimate", "note", "not readable", change_cost))
    elif cost is not None and cost > 0:
        found.append(
            Finding(
                "query cost estimate",
                "change",
                f"queries estimated to run longer than {cost} s are refused before they "
                "start; Virtuoso 7.2.5's estimates for hopgate's rule steps are wrong by "
                'orders of magnitude (it refused one as "0 (sec) exceeds the limit of '
                '400 (sec)")',
                change_cost,
            )
        )
    else:
        found.append(Finding("query cost estimate", "ok", "no estimate check"))
    seconds = limits.setting("MaxQueryExecutionTime")
    change_time = (
        "[SPARQL] MaxQueryExecutionTime = 0 in virtuoso.ini (no limit; hopgate's own "
        f"timeout, {client_timeout:g} s, still bounds each request) or at least "
        f"{client_timeout:g}, then restart the server"
    )
    if "MaxQueryExecutionTime" not in limits.settings:
        found.append(Finding("query time", "note", "not readable", change_time))
    elif seconds is not None and 0 < seconds < client_timeout:
        found.append(
            Finding(
                "query time",
                "change",
                f"a query or rule step running longer than {seconds} s is stopped "
                "(SR171); rule steps on ledgers of tens of thousands of claims run longer",
                change_time,
            )
        )
    else:
        limit = f"{seconds} s" if seconds else "none"
        found.append(Finding("query time", "ok", f"limit {limit}"))
    image = limits.setting("TransactionAfterImageLimit")
    change_image = (
        "[Parameters] TransactionAfterImageLimit = "
        f"{VIRTUOSO_ADVICE['TransactionAfterImageLimit']} in virtuoso.ini "
        "(read as 32 bits: larger values wrap around), then restart the server"
    )
    if image is not None and image < int(VIRTUOSO_ADVICE["TransactionAfterImageLimit"]):
        found.append(
            Finding(
                "transaction size",
                "note",
                f"a transaction's log is capped at {image:,} bytes; each rule step of an "
                "evaluation on the server writes its answers in one transaction, and a "
                "larger one is refused whole (SR325): one step may write about "
                f"{one_transaction_triples(image):,} triples",
                change_image,
            )
        )
    else:
        found.append(
            Finding(
                "transaction size",
                "ok",
                f"limit {image:,} bytes: one rule step may write about "
                f"{one_transaction_triples(image):,} triples"
                if image
                else "limit unknown",
            )
        )
    return found


# ---- a server's failure as one sentence ---------------------------------------------

_RULES: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(r"estimated execution time .* exceeds the limit of (\d+)", re.I | re.S),
        "the server refused the {what} before running it: its estimated cost passes "
        "Virtuoso's limit of {0} s (an estimate Virtuoso 7.2.5 often gets wrong); set "
        "[SPARQL] MaxQueryCostEstimationTime = 0 in virtuoso.ini (no estimate check), "
        "restart the server and run the command again",
    ),
    (
        re.compile(r"SR171|Transaction timed out", re.I),
        "the server stopped the {what} at its time limit (SR171); set [SPARQL] "
        "MaxQueryExecutionTime = 0 in virtuoso.ini (no limit) or higher than the longest "
        "step, restart the server and run the command again",
    ),
    (
        re.compile(r"SR325"),
        "the {what} is larger than Virtuoso's transaction log allows (SR325): nothing was "
        "published; set [Parameters] TransactionAfterImageLimit = 2000000000 in "
        "virtuoso.ini (read as 32 bits: larger values wrap around), restart the server "
        "and run the command again",
    ),
    (
        re.compile(r"SR186|SR575"),
        "the server refused the {what}: its user may not write with SPARQL; as dba, run "
        'GRANT SPARQL_UPDATE TO "USER"; in isql-vt (USER: the --user hopgate writes as)',
    ),
    (
        re.compile(r"SR619.*?graph (\S+)", re.S),
        "the server refused the {what}: its user has no write permission on graph {0}; "
        "as dba, run DB.DBA.RDF_DEFAULT_USER_PERMS_SET('USER', 7); in isql-vt (or "
        "DB.DBA.RDF_GRAPH_USER_PERMS_SET per graph)",
    ),
    (
        re.compile(r"SR353|Sorted TOP clause", re.I),
        "the server refused to sort more rows than [Parameters] MaxSortedTopRows allows "
        "(10000 unless set); raise it in virtuoso.ini above the rows the {what} sorts "
        "and restart the server",
    ),
    (
        re.compile(r"read[- ]only", re.I),
        "the server refused the {what}: it is read-only (oxigraph serve-read-only); "
        "writes need `oxigraph serve`",
    ),
    (
        re.compile(r"timeout|timed out", re.I),
        "the server stopped the {what} at its time limit; raise the server's query "
        "timeout (oxigraph serve --timeout-s, or none) and run the command again",
    ),
]


def explain(message: str, what: str) -> str | None:
    """One sentence for a server failure whose cause is a setting, naming it; None otherwise."""
    for pattern, sentence in _RULES:
        match = pattern.search(message)
        if match:
            return sentence.format(*match.groups(), what=what)
    return None


def first_line(message: str) -> str:
    """The server's own error without the query it echoes (Virtuoso appends the whole text)."""
    text = re.split(r"\n\s*SPARQL query:|\nSPARQL query:", message, maxsplit=1)[0]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return (lines[0] if lines else message.strip())[:300]


__all__ = [
    "MAX_ROWS_HEADER",
    "PROBE_QUERY",
    "PROBE_ROWS",
    "SAYS_WHEN_CUT",
    "VIRTUOSO_ADVICE",
    "Finding",
    "Limits",
    "explain",
    "family",
    "first_line",
    "read_settings",
    "row_cap_finding",
    "virtuoso_findings",
    "virtuoso_settings_query",
]
