"""Recording a reviewer's judgment, and the scores a re-evaluation changed.

docs/spec/adjudication.md. A judgment is appended as a small one-judgment
ledger kept under the store's folder and loaded as any ledger is, all or
nothing (docs/spec/ledger.md "Loading"): every check of the loader applies
(the decision is a term of the question, the subject exists and is of the
right kind, a final judgment settles initial judgments of its own subject
and question, its time is not after its recording), and a rejected judgment
leaves neither a graph nor a file. The store is the truth: the file is
written in a pending folder and takes its place beside the recorded
judgments only once the load has published it, so a ``judge`` killed before
that leaves nothing that looks recorded. Nothing is edited: the judgment is
a new record, and the runs that depend on its subject become stale
(queries/run-inputs.rq).

:func:`changes` compares a run's two latest evaluations ("Changed scores"):
every output whose verdict changed with the final judgments and annotation
versions that bear on its card, and the metrics before and after.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from hopgate import faults, ids
from hopgate.audit import results
from hopgate.errors import AdjudicationError, LedgerError
from hopgate.ingest.judgments import QUESTIONS
from hopgate.ingest.loader import LoadResult
from hopgate.ingest.loader import load as load_ledger
from hopgate.library.artefacts import library_query
from hopgate.store import IRI, Store, catalog
from hopgate.suggest import did_you_mean
from hopgate.times import xsd_datetime
from hopgate.vocab import VERDICTS

#: Where recorded judgments are kept in an on-disk store's folder (not among the
#: snapshots, which are a cache that may be deleted).
JUDGMENTS_FOLDER = "hopgate-judgments"
#: A judgment's file waits under a folder with this prefix until its load is published.
PENDING_PREFIX = ".pending-"
#: A pending folder older than this (seconds) was left by a killed ``judge``: removed.
PENDING_AGE = 3600.0

#: Signs a judgment's record (its fields) and returns the proof (hopgate.bundles.judgment_proofs).
Signer = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass(frozen=True)
class Recorded:
    """One judgment recorded: its id, the ledger file kept, and the load."""

    id: str
    file: str
    load: LoadResult


def judgments_folder(store: Store, folder: Path | None = None) -> Path:
    """The folder recorded judgments are kept in: ``folder``, else beside an on-disk store."""
    if folder is not None:
        return folder
    if store.folder is not None:
        return store.folder / JUDGMENTS_FOLDER
    raise AdjudicationError(
        "this store has no folder of its own (in memory or remote): "
        "name one for the judgment's ledger file with --keep-in DIR"
    )


def judge(
    store: Store,
    subject: str,
    *,
    question: str,
    decision: str,
    by: str,
    reason: str,
    final: bool = False,
    settles: Sequence[str] = (),
    at: datetime | None = None,
    judgment_id: str | None = None,
    folder: Path | None = None,
    signer: Signer | None = None,
    machine: bool = False,
) -> Recorded:
    """Append one judgment of ``subject`` as a one-judgment ledger, loaded all or nothing.

    ``by`` is also the person the load is recorded for (``recorded_by``).
    ``signer`` adds a proof over the judgment's fields (``judge --sign KEY``;
    docs/spec/adjudication.md "Signed judgments"). The ledger file is kept
    in ``folder`` once the load is published, and only then. ``machine``
    records an automated judge's judgment, named with its version in ``by``
    (docs/spec/adjudication.md "Machine triage"): initial only.

    Raises:
        AdjudicationError: an unknown question, a decision that is not a term of
            the question, a missing reviewer or reason, settles on an initial
            judgment, a final machine judgment, or no folder to keep the file in.
        LedgerError: the loader's checks, naming the judgment (unknown subject, a subject of the
            wrong kind, a settled judgment that is unknown, final, or about
            another subject or question); nothing is kept.
    """
    if question not in QUESTIONS:
        raise AdjudicationError(
            f"unknown question {question!r}: expected one of {', '.join(QUESTIONS)}"
        )
    # Said before any file is written, in the judge's words (not the loader's, which
    # would name the pending file the judgment waits in).
    terms = QUESTIONS[question].decisions
    if decision not in terms:
        raise AdjudicationError(
            f"decision {decision!r} is not a term of question {question!r}"
            f"{did_you_mean(decision, terms)}: expected one of {', '.join(terms)}"
        )
    if not by.strip():
        raise AdjudicationError("a judgment needs its reviewer (--by)")
    if not reason.strip():
        raise AdjudicationError("a judgment needs its reason (--reason)")
    if settles and not final:
        raise AdjudicationError("only a final judgment settles others (add --final)")
    if machine and final:
        raise AdjudicationError(
            "a machine judgment is initial only: it cannot be final "
            '(docs/spec/adjudication.md "Machine triage")'
        )
    moment = (at or datetime.now(UTC)).astimezone(UTC)
    stamp = xsd_datetime(moment)
    if judgment_id is None:
        judgment_id = f"{question}:{subject}:{by}@{stamp}"
    record: dict[str, Any] = {
        "id": judgment_id,
        "subject": subject,
        "question": question,
        "decision": decision,
        "by": by,
        "at": stamp,
        "reason": reason,
        "final": final,
    }
    if machine:
        record["machine"] = True
    if settles:
        record["settles"] = list(settles)
    if signer is not None:
        record["proof"] = signer(dict(record))
    text = judgment_file_text(record)
    target = judgments_folder(store, folder)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    name = f"judgment-{moment.strftime('%Y%m%dT%H%M%S%f')}-{digest}.yaml"
    # The file waits in a pending folder of its own (the load records its
    # name) and joins the recorded ones only after the load is published: a
    # judge killed before then leaves no file that looks recorded, and one
    # killed after leaves the store recorded (the store is the truth).
    try:
        target.mkdir(parents=True, exist_ok=True)
        _remove_abandoned(target)
        pending = Path(tempfile.mkdtemp(prefix=PENDING_PREFIX, dir=target))
    except OSError as exc:
        # Before anything is loaded: the store is as it was.
        raise AdjudicationError(
            f"cannot keep the judgment's file in {str(target)!r}: "
            f"{exc.strerror or exc} (--keep-in names a folder hopgate can write)"
        ) from None
    try:
        (pending / name).write_text(text, encoding="utf-8")
        faults.step("judge:written")
        try:
            loaded = load_ledger(store, pending / name, agent=by)
        except LedgerError as exc:
            # The file is hopgate's own scratch copy: name the judgment, not its path.
            raise LedgerError(
                exc.detail, file=f"judgment {judgment_id!r}", field=exc.field
            ) from None
        path = target / name
        (pending / name).replace(path)
    finally:
        shutil.rmtree(pending, ignore_errors=True)
    return Recorded(judgment_id, str(path), loaded)


def judgment_file_text(record: dict[str, Any]) -> str:
    """The YAML text of a one-judgment ledger that reads back as exactly ``record``.

    Characters are written as themselves where PyYAML reads them back (a
    reviewer's name stays legible), else every non-ASCII character is
    escaped: PyYAML writes U+0085 (NEL) inside a single-quoted scalar as a
    line break, which reads back as a space, so the judgment would name
    another subject.
    """
    ledger = {"ledger": 1, "judgments": [record]}
    text = yaml.safe_dump(ledger, allow_unicode=True, sort_keys=False)
    if yaml.safe_load(text) == ledger:
        return text
    return yaml.safe_dump(ledger, allow_unicode=False, sort_keys=False)


def _remove_abandoned(folder: Path) -> None:
    """Remove the pending folders a killed ``judge`` left (older than :data:`PENDING_AGE`)."""
    cutoff = time.time() - PENDING_AGE
    for entry in folder.glob(PENDING_PREFIX + "*"):
        try:
            if entry.is_dir() and entry.stat().st_mtime < cutoff:
                shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            continue


# ---- changed scores ------------------------------------------------------------


@dataclass(frozen=True)
class VerdictChange:
    """One output whose verdict changed between two evaluations, and what changed under it.

    ``judgments``: final judgments in force on its card now and not before;
    ``annotation_versions``: its routes re-annotated since (``gC2 version 2``);
    ``causes``: each set, contradiction or judgment that changed, from what to what.
    """

    output: str
    question: str
    before: str
    after: str
    judgments: tuple[str, ...]
    annotation_versions: tuple[str, ...]
    causes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The JSON form of one changed verdict."""
        found = asdict(self)
        for name in ("judgments", "annotation_versions", "causes"):
            found[name] = list(getattr(self, name))
        return found


@dataclass
class ScoreChanges:
    """The two latest evaluations of a run compared (docs/spec/adjudication.md "Changed scores")."""

    run: str
    before: str | None
    after: str
    verdicts: list[VerdictChange] = field(default_factory=list)
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "before": self.before,
            "after": self.after,
            "verdicts": [v.as_dict() for v in self.verdicts],
            "metrics": self.metrics,
        }


def _bundle_cards(store: Store, bundle: str) -> dict[str, tuple[str, str, str]]:
    rows = store.select(
        "SELECT ?card ?output ?question ?verdict WHERE { GRAPH ?bundle { "
        "?card a hg:AcceptanceCard ; hg:forOutput ?output ; hg:forQuestion ?question ; "
        "hg:verdict ?verdict } }",
        params={"bundle": IRI(bundle)},
    )
    return {str(r["output"]): (str(r["card"]), str(r["question"]), str(r["verdict"])) for r in rows}


#: (relation, target IRI) -> (status IRI or None, annotation version or None)
_State = dict[tuple[str, str], tuple[str | None, int | None]]


def _card_states(store: Store, bundle: str) -> dict[str, _State]:
    """What bears on each card of ``bundle`` (queries/card-state.rq), by output IRI."""
    states: dict[str, _State] = {}
    for row in store.select(library_query("card-state").text, params={"bundle": IRI(bundle)}):
        status = None if row["status"] is None else str(row["status"])
        version = row["version"]
        states.setdefault(str(row["output"]), {})[(str(row["relation"]), str(row["target"]))] = (
            status,
            int(version) if isinstance(version, int) else None,
        )
    return states


def _word(status: str | None) -> str:
    return "(none)" if status is None else status.rsplit("#", 1)[-1].lower()


def _causes(old: _State, new: _State) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    judged, versions, causes = [], [], []
    for relation, target in sorted(set(old) | set(new)):
        was, now = old.get((relation, target)), new.get((relation, target))
        if was == now:
            continue
        name = ids.ledger_id(target)
        if relation == "judgment":
            if now is not None:
                judged.append(name)
                causes.append(f"judgment {name} now in force")
            else:
                causes.append(f"judgment {name} no longer in force")
            continue
        before = "(absent)" if was is None else _word(was[0])
        after = "(absent)" if now is None else _word(now[0])
        if relation == "route":
            if was is not None:
                before += f" version {was[1]}"
            if now is not None:
                after += f" version {now[1]}"
                if was is None or was[1] != now[1]:
                    versions.append(f"{name} version {now[1]}")
            causes.append(f"set {name}: {before} -> {after}")
        else:
            causes.append(f"contradiction {name}: {before} -> {after}")
    return tuple(judged), tuple(versions), tuple(causes)


def verdict_causes(store: Store, before: str, after: str) -> dict[str, tuple[str, ...]]:
    """Output id -> what changed under its card from bundle ``before`` to bundle ``after``.

    Each cause names a set, contradiction or judgment and says from what to
    what (docs/spec/adjudication.md "Changed scores"); outputs with nothing
    changed under them are left out. Reads only.
    """
    return {
        ids.ledger_id(output): causes
        for output, (_, _, causes) in _changed_under(store, before, after).items()
        if causes
    }


def _changed_under(
    store: Store, before: str, after: str
) -> dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]]:
    """Output IRI -> (judgments now in force, re-annotated routes, causes) from ``before`` to
    ``after`` (bundle IRIs): what :func:`_causes` finds under each card."""
    old, new = _card_states(store, before), _card_states(store, after)
    return {
        output: _causes(old.get(output, {}), new.get(output, {}))
        for output in sorted(old.keys() | new.keys())
    }


def changes(store: Store, run: str) -> ScoreChanges:
    """Compare ``run``'s two latest evaluations: changed verdicts and the metrics side by side.

    Reads only. With a single evaluation, every figure is shown with no
    "before" and no verdict is listed as changed.

    Raises:
        AdjudicationError: the run is unknown or was never evaluated.
    """
    if run not in catalog.runs(store):
        raise AdjudicationError(f"unknown run {run!r}")
    found = catalog.evaluations(store, run)
    if not found:
        raise AdjudicationError(f"run {run!r} was never evaluated; run `hopgate evaluate`")
    after = found[-1]
    before = found[-2] if len(found) > 1 else None
    result = ScoreChanges(
        run,
        None if before is None else ids.ledger_id(before.activity),
        ids.ledger_id(after.activity),
    )
    new_cards = _bundle_cards(store, after.bundle)
    old_cards = {} if before is None else _bundle_cards(store, before.bundle)
    changed = [
        (output, question, old_cards[output][2], verdict)
        for output, (_card, question, verdict) in sorted(new_cards.items())
        if output in old_cards and old_cards[output][2] != verdict
    ]
    if changed and before is not None:
        under = _changed_under(store, before.bundle, after.bundle)
        for output, question, was, verdict in changed:
            judged, versions, causes = under.get(output, ((), (), ()))
            result.verdicts.append(
                VerdictChange(
                    output=ids.ledger_id(output),
                    question=ids.ledger_id(question),
                    before=VERDICTS[was],
                    after=VERDICTS[verdict],
                    judgments=judged,
                    annotation_versions=versions,
                    causes=causes,
                )
            )
    now = results.bundle_metrics(store, run, after)
    then = None if before is None else results.bundle_metrics(store, run, before)
    for name in results.FIGURES:
        new = asdict(getattr(now, name))
        old_figure = None if then is None else asdict(getattr(then, name))
        result.metrics[name] = {
            "before": old_figure,
            "after": new,
            "changed": old_figure is not None
            and (old_figure["numerator"], old_figure["denominator"])
            != (new["numerator"], new["denominator"]),
        }
    for name, value in now.counts.items():
        old_count = None if then is None else then.counts.get(name)
        result.metrics[name] = {
            "before": old_count,
            "after": value,
            "changed": old_count is not None and old_count != value,
        }
    return result


__all__ = [
    "PENDING_PREFIX",
    "Recorded",
    "Signer",
    "ScoreChanges",
    "VerdictChange",
    "changes",
    "judge",
    "judgment_file_text",
    "judgments_folder",
    "verdict_causes",
]
