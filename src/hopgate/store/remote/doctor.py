"""``hopgate doctor``: check a SPARQL server for what hopgate needs, without changing it.

Each check is a :class:`~hopgate.store.remote.limits.Finding`: what was
found, and when hopgate would fail or slow down on it, the setting to
change and the value to use (docs/servers.md). Checked:

- that the server answers, and which server it is;
- its result-row cap (probed: one query of empty rows);
- on Virtuoso, the settings read from its own ini: the query cost estimate
  limit, the query time limit and the transaction size;
- the reads hopgate sends (SELECT, ASK, CONSTRUCT) on the query endpoint;
- on Virtuoso, which graphs besides hopgate's hold steps of the walk of a
  run's inputs (:func:`hopgate.store.catalog.walk_outsiders`): with any, the
  walk costs more with each load;
- the graphs hopgate began writing that no catalog entry publishes (another
  client's write, or a killed one's, removed once a day old);
- the writes: an update dropping a graph that does not exist, under each
  name hopgate writes (a staging graph, a graph of its own base, a cache
  graph: hopgate.store.remote.caches), after
  an empty Graph Store upload into that staging graph. Neither leaves
  anything behind; a graph that exists under the probe's name is left alone
  and the check skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from hopgate.errors import HopgateError
from hopgate.store.catalog import walk_outsiders
from hopgate.store.remote.caches import cache_graph
from hopgate.store.remote.limits import Finding, Limits, row_cap_finding, virtuoso_findings
from hopgate.store.remote.store import RemoteStore
from hopgate.store.remote.uploads import STALE_WRITE, staging_graph
from hopgate.store.remote.values import boolean
from hopgate.vocab import ID_BASE

#: Graph names the write checks drop, one of each kind hopgate writes (a staging
#: graph, a graph of its own base, a cache graph): hopgate never creates them.
PROBE_GRAPHS = (
    staging_graph(ID_BASE + "doctor"),
    ID_BASE + "doctor",
    cache_graph(ID_BASE + "doctor"),
)


@dataclass
class ServerReport:
    """What ``hopgate doctor`` found on one server."""

    endpoint: str
    #: The server's ``Server`` header (product and version).
    product: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def needs_change(self) -> bool:
        """True when a finding says hopgate fails on the server until a setting changes."""
        return any(finding.severity == "change" for finding in self.findings)

    def as_dict(self) -> dict[str, object]:
        """The report as JSON-ready fields."""
        return {
            "endpoint": self.endpoint,
            "server": self.product,
            "needs_change": self.needs_change,
            "findings": [finding.as_dict() for finding in self.findings],
        }


def check_server(store: RemoteStore) -> ServerReport:
    """Check the server behind ``store`` for what hopgate needs; nothing on it changes.

    Raises:
        StoreError: the server cannot be reached at all.
    """
    limits = store.limits()
    report = ServerReport(store.endpoint, limits.product or "unknown server")
    report.findings.append(row_cap_finding(limits))
    report.findings.extend(_limit_findings(store, limits))
    report.findings.extend(_read_findings(store))
    report.findings.extend(_walk_findings(store))
    report.findings.extend(_unpublished_findings(store))
    report.findings.extend(_write_findings(store))
    return report


def _limit_findings(store: RemoteStore, limits: Limits) -> list[Finding]:
    if limits.kind == "virtuoso":
        if not limits.settings:
            return [
                Finding(
                    "server settings",
                    "note",
                    "Virtuoso's settings could not be read through the endpoint",
                    "check [SPARQL] MaxQueryCostEstimationTime = 0, MaxQueryExecutionTime = 0 "
                    "and [Parameters] TransactionAfterImageLimit = 2000000000 in virtuoso.ini "
                    "(docs/servers.md)",
                )
            ]
        return virtuoso_findings(limits, client_timeout=store.timeout)
    if limits.kind == "oxigraph":
        return [
            Finding(
                "query time",
                "ok",
                "not readable through the endpoint: `oxigraph serve --timeout-s N` stops "
                "queries running longer than N s (none by default)",
            )
        ]
    return [
        Finding(
            "query time",
            "note",
            "not readable through the endpoint: a server-side query timeout shorter than "
            "hopgate's longest rule step stops an evaluation",
            f"the server's query timeout: none, or at least {store.timeout:g} s",
        )
    ]


def _read_findings(store: RemoteStore) -> list[Finding]:
    found = []
    for form, text in (
        ("SELECT", "SELECT ?s WHERE { ?s ?p ?o } LIMIT 1"),
        ("ASK", "ASK { ?s ?p ?o }"),
        ("CONSTRUCT", "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o } LIMIT 1"),
    ):
        try:
            if form == "CONSTRUCT":
                store.limits()
                store._attempt(partial(store._construct_page, text), idempotent=True, what="query")
            else:
                store._json(text, dataset=False, capped=True)
        except HopgateError as exc:
            found.append(Finding(f"read ({form})", "change", str(exc), _read_advice(store)))
        else:
            found.append(Finding(f"read ({form})", "ok", "answered"))
    return found


def _read_advice(store: RemoteStore) -> str:
    if store.limits().kind == "virtuoso":
        return (
            'as dba, GRANT SPARQL_SELECT TO "SPARQL"; (the anonymous user of /sparql) in '
            "isql-vt, or give --user for a user that may read"
        )
    return "a user or endpoint that may read every graph hopgate writes"


def _walk_findings(store: RemoteStore) -> list[Finding]:
    """Whether a run's first evaluation may walk its inputs over every graph (Virtuoso)."""
    try:
        outsiders = walk_outsiders(store)
    except HopgateError:
        return []  # a server that cannot be read: the read checks say so
    if outsiders is None:
        return []
    check = "walk of a run's inputs"
    if not outsiders:
        return [Finding(check, "ok", "asked of every graph: no other graph holds a step of it")]
    return [
        Finding(
            check,
            "note",
            f"{len(outsiders)} graph(s) besides hopgate's hold predicates it follows (first: "
            f"{outsiders[0]}), so a run's first evaluation walks through hopgate's "
            "graphs, a cost that grows with each load (docs/remote-virtuoso.md)",
            "the graphs an interrupted load or evaluation left go once a day old (see "
            "'unpublished writes'); keep other applications' PROV data on another server",
        )
    ]


def _unpublished_findings(store: RemoteStore) -> list[Finding]:
    """The graphs hopgate began writing and no catalog entry publishes (docs/servers.md)."""
    try:
        begun = store.writes_begun()
    except HopgateError:
        return []  # a server that cannot be read: the read checks say so
    check = "unpublished writes"
    if not begun:
        return [Finding(check, "ok", "none: every graph hopgate began writing is published")]
    graph, began = begun[0]
    return [
        Finding(
            check,
            "note",
            f"{len(begun)} graph(s) hopgate began writing are not published (the oldest: "
            f"{graph}, since {began}): another client's write in progress, or one whose "
            "client was killed, which the next load or evaluation removes once its write "
            f"is {STALE_WRITE.total_seconds() / 3600:g} hours old",
        )
    ]


def _write_findings(store: RemoteStore) -> list[Finding]:
    who = f"user {store.user}" if store.user else "the anonymous user"
    found = []
    # The empty upload first: a server that keeps empty graphs (Oxigraph) may
    # create the staging graph, which the update check then drops again.
    if store.graph_store is not None:
        check = "write (graph store)"
        try:
            store._gsp_post(PROBE_GRAPHS[0], b"")
        except HopgateError as exc:
            found.append(
                Finding(
                    check,
                    "change",
                    f"{who} may not upload through {store.graph_store}: {exc}",
                    _write_advice(store),
                )
            )
        else:
            found.append(Finding(check, "ok", f"{who} may upload through {store.graph_store}"))
    for graph in PROBE_GRAPHS:
        check = "write (update)"
        exists = store._json(
            f"ASK {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}", dataset=False, capped=True
        )
        if boolean(exists.get("boolean")):
            found.append(Finding(check, "note", f"skipped: the graph {graph} exists"))
            continue
        try:
            store._update(f"DROP SILENT GRAPH <{graph}>")
        except HopgateError as exc:
            found.append(
                Finding(
                    check,
                    "change",
                    f"{who} may not write {graph} through {store.update_endpoint}: {exc}",
                    _write_advice(store),
                )
            )
        else:
            found.append(
                Finding(check, "ok", f"{who} may write {graph} through {store.update_endpoint}")
            )
    return found


def _write_advice(store: RemoteStore) -> str:
    kind = store.limits().kind
    user = store.user or "USER"
    if kind == "virtuoso":
        return (
            f'as dba in isql-vt: GRANT SPARQL_UPDATE TO "{user}"; '
            f"DB.DBA.RDF_DEFAULT_USER_PERMS_SET('{user}', 7); and write through "
            "/sparql-auth (--update-endpoint) with --user and --password-env"
        )
    if kind == "oxigraph":
        if store.update_endpoint == store.endpoint:
            # Updates sent to the query URL (--update-endpoint not given): HTTP 415.
            base = store.endpoint.rsplit("/", 1)[0]
            return (
                f"give --update-endpoint {base}/update (and --graph-store {base}/store): "
                "an Oxigraph server takes updates there, not at its query URL"
            )
        return "start the server with `oxigraph serve` (not serve-read-only)"
    return "a user allowed to run SPARQL Update on the update endpoint"


__all__ = ["PROBE_GRAPHS", "ServerReport", "check_server"]
