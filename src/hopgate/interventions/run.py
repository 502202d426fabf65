"""Run a system on a plan's variants (docs/spec/interventions.md "Running a system").

For each planned variant the system's command gets one JSON object on stdin,
``{"question": ..., "context": [{"id": ..., "text": ...}], "citable": [...]}``,
and writes one JSON object to stdout, ``{"answer": ..., "cites": [...],
"abstained": ..., "correct": ..., "short_answer": ...}`` (``correct`` and
``short_answer`` optional). The command runs as every command the user names
does (:mod:`hopgate.processes`: a minimal environment, its own process group
killed as a whole on timeout, its output read up to a cap). A timeout, a
non-zero exit, output over the cap or malformed output makes a **failed**
variant, recorded with its reason, never an abstention. An answer's
correctness is the system's ``correct``, else an exact match of its
``short_answer`` with the reference answer, else a judge's, else unknown
(:mod:`hopgate.ingest.correctness`): never the answer's text holding the reference.
Answers become ledger cases with an ``intervention`` mapping
(docs/spec/ledger.md "Cases"); they are scored against the plan recorded in
the store, never against what the answers file says was supplied or citable.
``builtin:bm25`` is hopgate's BM25 citer (:func:`hopgate.ingest.baseline.rank`) as a
system, so the loop runs with nothing else installed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hopgate import ids
from hopgate.errors import CommandError, InputRefused, PlanError, RunError, SystemAnswerError
from hopgate.escaping import json_data
from hopgate.ingest.adapters.common import write_ledger
from hopgate.ingest.baseline import rank
from hopgate.ingest.correctness import BY_LABEL, Judge, Tally, decide
from hopgate.inputs import parse_json, text_lines
from hopgate.processes import DEFAULT_OUTPUT_CAP, Limits, run_command

BUILTIN_BM25 = "builtin:bm25"


@dataclass(frozen=True)
class RunResult:
    """What running a system on a plan gave: answers written and variants failed."""

    answered: int
    abstained: int
    failed: list[dict[str, Any]]
    ledger: Path
    #: The runs whose claim-cases the plan varied (``hopgate evaluate`` scores the answers).
    runs: tuple[str, ...] = ()
    #: How the answers' correctness was decided, one sentence per way (hopgate.ingest.correctness).
    notes: list[str] = field(default_factory=list)
    #: How many answers the correctness judge failed to decide (left of unknown correctness).
    judge_failures: int = 0


def request(item: dict[str, Any]) -> dict[str, Any]:
    """The JSON object a system gets for one planned variant."""
    return {
        "question": item.get("question_text") or item["question"],
        "context": [{"id": c["id"], "text": c["text"]} for c in item["context"]],
        "citable": list(item["citable"]),
    }


def _parse(data: bytes) -> dict[str, Any]:
    try:
        answer = parse_json(data.decode("utf-8"), strict=False)  # bounded: digits, nesting
    except InputRefused as exc:
        raise SystemAnswerError(f"malformed output: {exc.detail}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise SystemAnswerError(f"malformed output: not JSON ({exc})") from None
    if not isinstance(answer, dict):
        raise SystemAnswerError("malformed output: not a JSON object")
    if not isinstance(answer.get("abstained", False), bool):
        raise SystemAnswerError("malformed output: 'abstained' is not a boolean")
    cites = answer.get("cites", [])
    if not isinstance(cites, list) or not all(isinstance(c, str) for c in cites):
        raise SystemAnswerError("malformed output: 'cites' is not a list of span ids")
    if answer.get("answer") is not None and not isinstance(answer["answer"], str):
        raise SystemAnswerError("malformed output: 'answer' is not a string")
    if answer.get("correct") is not None and not isinstance(answer["correct"], bool):
        raise SystemAnswerError("malformed output: 'correct' is not a boolean")
    if answer.get("short_answer") is not None and not isinstance(answer["short_answer"], str):
        raise SystemAnswerError("malformed output: 'short_answer' is not a string")
    return answer


def command_system(command: str, *, limits: Limits) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A system that runs ``command`` in a shell once per variant, within ``limits``."""

    def answer(payload: dict[str, Any]) -> dict[str, Any]:
        try:
            done = run_command(
                command,
                stdin=json.dumps(payload, ensure_ascii=False).encode("utf-8"),
                limits=limits,
            )
        except CommandError as exc:
            raise SystemAnswerError(str(exc)) from None
        if done.returncode != 0:
            tail = done.last_error_line()
            raise SystemAnswerError(
                f"exit status {done.returncode}" + (f": {tail}" if tail else "")
            )
        return _parse(done.stdout)

    return answer


def bm25_system(payload: dict[str, Any]) -> dict[str, Any]:
    """hopgate's BM25 citer as a system: cites the two citable passages that rank first."""
    citable = set(payload["citable"])
    passages = [c for c in payload["context"] if c["id"] in citable and c["text"]]
    if not passages:
        return {"answer": None, "cites": [], "abstained": True}
    wanted = min(2, len(passages))
    order = rank([p["text"] for p in passages], [payload["question"]], k=wanted)[0]
    # BM25 ranks only passages sharing a word with the question: the rest follow in
    # context order, so that a readable context is always cited, never an empty answer.
    order = [*order, *(i for i in range(len(passages)) if i not in order)][:wanted]
    chosen = [passages[i] for i in order]
    return {
        "answer": " ".join(p["text"] for p in chosen),
        "cites": [p["id"] for p in chosen],
        "abstained": False,
    }


def _delivered(span_id: str, item: dict[str, Any]) -> Any:
    replacement = item.get("replacement")
    if isinstance(replacement, dict):
        version, start, end = replacement["version"], replacement["start"], replacement["end"]
        if span_id == f"{version}[{start}:{end}]":
            return {"version": version, "start": start, "end": end}
    return span_id


def _writes_output(answer: dict[str, Any]) -> bool:
    """Whether ``answer`` becomes an output of its case: unless it abstains without text."""
    return not answer.get("abstained", False) or bool(answer.get("answer"))


def case_of(
    item: dict[str, Any],
    number: int,
    answer: dict[str, Any],
    *,
    judging: Tally | None = None,
    judge: Judge | None = None,
) -> dict[str, Any]:
    """The ledger case recording ``answer`` to the planned variant ``item`` (number ``number``).

    The output's correctness: the system's ``correct``, else its
    ``short_answer`` matching the plan's reference answer exactly (after
    normalization), else ``judge``'s decision, else unknown (``correct:
    null``); ``judging`` counts how each was decided.
    """
    intervention: dict[str, Any] = {"set": item["set"], "variant": item["variant"]}
    for name in ("member", "replacement"):
        if item.get(name) is not None:
            intervention[name] = item[name]
    intervention["citable"] = [_delivered(s, item) for s in item["citable"]]
    context_ids = {c["id"] for c in item["context"]}
    case: dict[str, Any] = {
        "type": "case",
        "run": item["run"],
        "question": item["question"],
        "intervention": intervention,
        "retrieved": [_delivered(c["id"], item) for c in item["context"]],
        "abstained": bool(answer.get("abstained", False)),
        "x-plan": item.get("plan"),
    }
    text = answer.get("answer")
    if _writes_output(answer):
        correct = answer.get("correct")
        output: dict[str, Any] = {
            "id": f"{item.get('plan', item['run'])}/variant-{number}/o1",
            "claim": item["claim"],
            "cites": [_delivered(s, item) for s in answer.get("cites", [])],
        }
        if text is not None:
            output["text"] = text
        # interventions.md "Running a system": never guessed from the text.
        decision = decide(
            label=correct,
            short_answer=answer.get("short_answer"),
            reference=item.get("reference_answer"),
            question=str(item.get("question_text") or item["question"]),
            answer=text,
            judge=judge,
        )
        if judging is not None:
            judging.add(decision)
        if decision.by != BY_LABEL:
            output["x-correct-by"] = decision.by
        output["correct"] = decision.correct
        unknown = [s for s in answer.get("cites", []) if s not in context_ids]
        if unknown:
            output["x-cited-outside-context"] = unknown
        case["outputs"] = [output]
    return case


def run_plan(
    items: list[dict[str, Any]],
    system: str,
    output: Path,
    *,
    jobs: int = 1,
    timeout: float = 60.0,
    pass_env: tuple[str, ...] = (),
    output_cap: int = DEFAULT_OUTPUT_CAP,
    correctness_judge: str | None = None,
    undefined_spans: Callable[[list[str]], set[str]] | None = None,
) -> RunResult:
    """Run ``system`` on every planned variant; write the answers as a ledger at ``output``.

    ``system`` (and ``correctness_judge``) run with ``timeout`` seconds, the
    minimal environment plus ``pass_env`` and standard output capped at
    ``output_cap`` bytes (:mod:`hopgate.processes`). Failed variants
    (timeout, non-zero exit, output over the cap, malformed output) are
    written, one JSON line each with their reason, to
    ``<output>.failed.jsonl``. With ``undefined_spans`` (which of the span ids
    given a store does not hold), an answer citing, outside its context, a span
    id the store does not hold is a failed variant too: as a case it would keep
    the whole answers ledger from loading.

    Raises:
        RunError: the plan holds no variant.
    """
    if not items:
        raise RunError("the plan holds no variant to run")
    limits = Limits(timeout=timeout, output_cap=output_cap, pass_env=pass_env)
    judge = None if correctness_judge is None else Judge(correctness_judge, limits)
    answer: Callable[[dict[str, Any]], dict[str, Any]]
    answer = bm25_system if system == BUILTIN_BM25 else command_system(system, limits=limits)

    def one(number: int) -> tuple[dict[str, Any] | None, str | None]:
        try:
            return answer(request(items[number])), None
        except SystemAnswerError as exc:
            return None, str(exc)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        outcomes = list(pool.map(one, range(len(items))))
    if undefined_spans is not None:
        outcomes = _unknown_cites_failed(items, outcomes, undefined_spans)
    cases, failed = [], []
    judging = Tally()
    for index, (item, (got, reason)) in enumerate(zip(items, outcomes, strict=True)):
        # Its place in the plan: the output ids of a rerun of failed variants (which
        # carry it) are those the whole plan's run would have given them.
        number = int(item.get(PLAN_POSITION, index + 1))
        if got is None:
            failed.append({"variant_number": number, **_identity(item), "reason": reason})
            continue
        cases.append(case_of(item, number, got, judging=judging, judge=judge))
    write_ledger(cases, output)
    failed_path = output.with_name(output.name + ".failed.jsonl")
    if failed:
        failed_path.write_text(
            "".join(json_data(f) + "\n" for f in failed),
            encoding="utf-8",
        )
    else:
        failed_path.unlink(missing_ok=True)
    abstained = sum(1 for c in cases if c["abstained"] and not c.get("outputs"))
    runs = tuple(sorted({str(item["run"]) for item in items if item.get("run") is not None}))
    return RunResult(
        len(cases),
        abstained,
        failed,
        output,
        runs,
        judging.notes("answers"),
        judge_failures=sum(judging.failures.values()),
    )


#: The reason of a failed variant whose answer cites a span id the store does not hold
#: (or a text no span id can be).
UNKNOWN_CITES = "cites a span id the store does not hold"


def _unknown_cites_failed(
    items: list[dict[str, Any]],
    outcomes: list[tuple[dict[str, Any] | None, str | None]],
    undefined_spans: Callable[[list[str]], set[str]],
) -> list[tuple[dict[str, Any] | None, str | None]]:
    """``outcomes`` with each answer that cites, outside its variant's context, a span id
    the store does not hold (or a text no span id can be) turned into a failure (one
    question for every such id)."""

    def outside(item: dict[str, Any], answer: dict[str, Any]) -> list[str]:
        if not _writes_output(answer):
            return []  # no output is written for it (case_of): it cites nothing
        context = {c["id"] for c in item["context"]}
        return [c for c in answer.get("cites", []) if c not in context]

    cited = {
        c for item, (got, _) in zip(items, outcomes, strict=True) if got for c in outside(item, got)
    }
    invalid = {c for c in cited if not _span_id(c)}
    asked = sorted(cited - invalid)
    unknown = (undefined_spans(asked) if asked else set()) | invalid
    if not unknown:
        return outcomes
    checked: list[tuple[dict[str, Any] | None, str | None]] = []
    for item, (got, reason) in zip(items, outcomes, strict=True):
        missing = sorted(set(outside(item, got)) & unknown) if got else []
        checked.append(
            (None, f"{UNKNOWN_CITES}: {', '.join(map(repr, missing))}")
            if missing
            else (got, reason)
        )
    return checked


def _span_id(text: str) -> bool:
    """Whether ``text`` can be a span's ledger id (an empty text or a lone surrogate cannot)."""
    try:
        ids.mint("span", text)
    except (ValueError, UnicodeError):
        return False
    return True


#: The key under which :func:`failed_variants` gives each variant its place in the plan.
PLAN_POSITION = "_plan_position"


def failed_variants(items: list[dict[str, Any]], failed: Path) -> list[dict[str, Any]]:
    """The variants of the plan ``items`` that the run whose ``OUTPUT.failed.jsonl`` is
    ``failed`` failed, in the plan's order.

    Raises:
        PlanError: ``failed`` cannot be read, or names a variant the plan does not hold.
    """
    wanted: list[tuple[int, str]] = []
    try:
        lines = list(text_lines(failed))
    except InputRefused as exc:
        raise PlanError(f"cannot read the failed variants {failed}: {exc.detail}") from None
    for number, line in lines:
        try:
            entry = parse_json(line, strict=False)
        except (json.JSONDecodeError, InputRefused):
            raise PlanError(f"{failed}: line {number}: not a failed variant (not JSON)") from None
        if not isinstance(entry, dict):
            raise PlanError(f"{failed}: line {number}: not a failed variant")
        wanted.append((number, _identity_key(entry)))
    planned = [_identity_key(item) for item in items]
    known = set(planned)
    for number, key in wanted:
        if key not in known:
            raise PlanError(
                f"{failed}: line {number}: a failed variant this plan does not hold "
                "(give the plan that run ran)"
            )
    keys = {key for _, key in wanted}
    return [
        {**item, PLAN_POSITION: position}
        for position, (key, item) in enumerate(zip(planned, items, strict=True), start=1)
        if key in keys
    ]


def _identity_key(item: dict[str, Any]) -> str:
    """A variant's identity (:func:`_identity`) as one comparable text."""
    return json.dumps(_identity(item), sort_keys=True)


def _identity(item: dict[str, Any]) -> dict[str, Any]:
    keys = ("plan", "run", "question", "claim", "set", "variant", "member", "replacement")
    return {k: item[k] for k in keys if item.get(k) is not None}


__all__ = [
    "BUILTIN_BM25",
    "failed_variants",
    "UNKNOWN_CITES",
    "RunResult",
    "bm25_system",
    "case_of",
    "request",
    "run_plan",
]
