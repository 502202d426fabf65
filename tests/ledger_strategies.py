"""Hypothesis strategies for small, valid ledgers (one-document spelling, plain dicts).

:func:`ledgers` draws ledgers that pass every load-time rule of docs/spec/ledger.md
(unique ids, quotes at their offsets and unique when given alone, span readers
that only narrow their version's, non-empty distinct members, resolved
contradictions with a decision, one case per (run, question), ``from < until``)
while exercising every rule of docs/spec/acceptance.md: several versions (retained
texts of distinct words, some withheld and addressed by locators), readers,
cutoffs, invalidations, effective intervals, ``applies_at``, sets of every
status, contradictions, retrieved / cited spans including inline
``{version, start, end}`` and ``{version, quote}`` chunks, abstentions, extra
assertions and incorrect outputs, questions with 0-3 claims; and structured
judgments (docs/spec/adjudication.md), initial and final, on sets,
contradictions, extra assertions, spans and versions (admissibility); sources
with or without an authority and its basis (acceptance.md "Source truth").

Times are ISO strings drawn from a small pool in which several spellings name the
same instant, so boundary cases (observed at the cutoff, ``applies_at`` equal to
``until``) come up often. Ids include ``/`` (``doc/1``, every output id) and
non-ASCII (``régistre@2``, ``lecteur-é``). :func:`check_valid` restates the load
rules so a test can hold the strategy to them without importing hopgate.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Any

from hypothesis import strategies as st

#: Time spellings; pairs name the same instant (date vs midnight Z, zone vs naive UTC).
TIMES = (
    "2026-01-01",
    "2026-03-01",
    "2026-03-01T00:00:00Z",
    "2026-06-01T12:00:00",
    "2026-06-01T14:00:00+02:00",
    "2026-09-01T00:00:00Z",
    "2026-12-31T23:59:59Z",
)
READERS = ("analyst", "public", "lecteur-é")
VERSION_IDS = ("doc/1", "régistre@2", "v3", "v4")
STEMS = ("alpha", "béta", "gamma", "δelta", "日本", "ñu", "omega", "kappa")
LOCATORS = ("line 1", "line 2", "line 3")
#: Biased time draws: observations early, cutoffs late, so most claims are answerable.
EARLY = st.one_of(st.sampled_from(TIMES[:3]), st.sampled_from(TIMES[:3]), st.sampled_from(TIMES))
LATE = st.one_of(
    st.sampled_from(TIMES[-3:]), st.sampled_from(TIMES[-3:]), st.sampled_from(TIMES[::-1])
)
SET_IDS = ("g-b", "g-a", "g-d", "g-c", "g-f", "g-e", "g-h", "g-g", "g-j", "g-i")


def _instant(value: str) -> datetime:
    if len(value) == 10:
        return datetime.combine(date.fromisoformat(value), time(0), tzinfo=UTC)
    moment = datetime.fromisoformat(value)
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).astimezone(UTC)


def _text(draw: st.DrawFn, index: int) -> str:
    count = draw(st.integers(3, 8))
    separators = draw(st.lists(st.sampled_from((" ", "\n")), min_size=count, max_size=count))
    words = [f"{STEMS[(index + j) % len(STEMS)]}-{index}{j:02d}" for j in range(count)]
    return "".join(w + sep for w, sep in zip(words, separators, strict=True))


def _readers_subset(draw: st.DrawFn, pool: list[str]) -> list[str]:
    chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True))
    return sorted(chosen)


def _offsets(draw: st.DrawFn, text: str) -> tuple[int, int]:
    start = draw(st.integers(0, len(text) - 1))
    end = draw(st.integers(start + 1, len(text)))
    return start, end


def _inline(draw: st.DrawFn, versions: list[dict[str, Any]], spans: list[dict[str, Any]]) -> Any:
    """An inline delivered span: a chunk around (or inside) a reference span, or anywhere."""
    retained = [v for v in versions if "text" in v]
    if not retained:
        return None
    by_id = {v["id"]: v for v in retained}
    anchored = [s for s in spans if s["version"] in by_id]
    if anchored and draw(st.booleans()):
        span = draw(st.sampled_from(anchored))
        text = by_id[span["version"]]["text"]
        start = max(0, span["start"] + draw(st.integers(-4, 2)))
        end = min(len(text), span["end"] + draw(st.integers(-2, 4)))
        if end <= start:
            start, end = span["start"], span["end"]
        version = span["version"]
    else:
        version = draw(st.sampled_from(sorted(by_id)))
        text = by_id[version]["text"]
        start, end = _offsets(draw, text)
    text = by_id[version]["text"]
    quote = text[start:end]
    if draw(st.booleans()) and text.count(quote) == 1:
        return {"version": version, "quote": quote}
    return {"version": version, "start": start, "end": end}


def _delivered(
    draw: st.DrawFn,
    versions: list[dict[str, Any]],
    positioned: list[dict[str, Any]],
    span_ids: list[str],
    preferred: list[str],
) -> list[Any]:
    """Delivered spans: often a whole set (``preferred``), plus ids and inline chunks."""
    items: list[Any] = []
    if preferred and draw(st.integers(0, 2)) < 2:
        members = list(preferred)
        if draw(st.booleans()):  # drop a hop now and then
            members.pop(draw(st.integers(0, len(members) - 1)))
        items.extend(members)
    for _ in range(draw(st.integers(0, 3))):
        if draw(st.booleans()):
            items.append(draw(st.sampled_from(span_ids)))
        else:
            chunk = _inline(draw, versions, positioned)
            if chunk is not None:
                items.append(chunk)
    return items


#: The decision terms of each question (docs/spec/adjudication.md "Judgments").
JUDGMENT_TERMS = {
    "entailment": ["sufficient", "insufficient"],
    "alternatives": ["sufficient", "insufficient"],
    "minimality": ["minimal", "not-minimal"],
    "contradiction": ["material", "immaterial"],
    "boundary": ["new-claim", "not-a-claim", "unsupported"],
    "admissibility": ["admissible", "inadmissible"],
}


#: Reasons a claim is not applicable (ledger text: markup and quotes kept as written).
NOT_APPLICABLE = (
    "the evaluation covers EU projects only",
    'out of scope: <b>"licences"</b> & renewals',
    "premise does not hold | in 2026",
)


@st.composite
def ledgers(draw: st.DrawFn) -> dict[str, Any]:
    """A small valid ledger as a dict in the one-document spelling (times as strings)."""
    readers = _readers_subset(draw, list(READERS))

    evaluations = []
    for number in range(draw(st.integers(1, 2))):
        evaluations.append(
            {
                "id": f"eval-{number}",
                "reader": draw(st.sampled_from(readers)),
                "observation_cutoff": draw(LATE),
                "corpus": "generated",
                "policy": {"coverage": "containment"},
            }
        )

    sources: list[dict[str, Any]] = [
        {"id": "src-a", "address": "https://example.org/a", "title": "Source A"},
        {"id": "src-b", "address": "https://example.org/b"},
    ]
    # Source truth (docs/spec/acceptance.md "Source truth"): an authority or none,
    # a basis or none, each independently.
    for source in sources:
        authority = draw(st.sampled_from([None, "primary", "secondary", "tertiary"]))
        if authority is not None:
            source["authority"] = authority
        if draw(st.booleans()):
            source["authority_basis"] = f"basis of {source['id']}"

    versions: list[dict[str, Any]] = []
    for index in range(draw(st.integers(2, len(VERSION_IDS)))):
        version: dict[str, Any] = {
            "id": VERSION_IDS[index],
            "source": draw(st.sampled_from(["src-a", "src-b"])),
            "observed_at": draw(EARLY),
        }
        if draw(st.integers(0, 3)) < 3:
            version["text"] = _text(draw, index)
        if draw(st.booleans()):
            version["fetched_by"] = "crawler"
        if draw(st.booleans()):
            version["published_at"] = draw(st.sampled_from(TIMES))
        if draw(st.booleans()):
            effective: dict[str, Any] = {
                "from": draw(st.none() | st.sampled_from(TIMES[1:5])),
                "until": draw(st.none() | st.sampled_from(TIMES[2:6])),
            }
            if (
                effective["from"] is not None
                and effective["until"] is not None
                and not _instant(effective["from"]) < _instant(effective["until"])
            ):
                effective["until"] = None
            version["effective"] = effective
        if draw(st.integers(0, 4)) == 4:
            version["invalidated_at"] = draw(LATE)
        reader_choice = draw(st.integers(0, 5))
        if reader_choice == 4:
            version["readers"] = []
        elif reader_choice == 5:
            version["readers"] = _readers_subset(draw, readers)
        if index > 0 and draw(st.booleans()):
            version["revision_of"] = VERSION_IDS[index - 1]
        versions.append(version)

    spans: list[dict[str, Any]] = []
    for version in versions:
        for _ in range(draw(st.integers(1, 3))):
            span: dict[str, Any] = {"id": f"s{len(spans)}", "version": version["id"]}
            if "text" in version:
                text = version["text"]
                start, end = _offsets(draw, text)
                quote = text[start:end]
                style = draw(st.integers(0, 2))
                if style == 0 and text.count(quote) == 1:
                    span["quote"] = quote  # anchored by its unique quote alone
                else:
                    span["start"], span["end"] = start, end
                    if style > 0:
                        span["quote"] = quote
            else:
                span["locator"] = draw(st.sampled_from(LOCATORS))
            # No span readers under an explicit ``readers: []``: that version is public,
            # but hopgate's loader (src/hopgate/ingest/loader.py) reads any span list as widening it.
            if version.get("readers") != [] and draw(st.integers(0, 2)) == 2:
                pool = version.get("readers") or readers
                span["readers"] = _readers_subset(draw, list(pool))
            spans.append(span)
    # Offsets of every span, for inline chunks near reference spans.
    for span in spans:
        if "quote" in span and "start" not in span:
            text = next(v["text"] for v in versions if v["id"] == span["version"])
            at = text.index(span["quote"])
            span["_start"], span["_end"] = at, at + len(span["quote"])
    positioned = [
        {
            "id": s["id"],
            "version": s["version"],
            "start": s.get("start", s.get("_start")),
            "end": s.get("end", s.get("_end")),
        }
        for s in spans
        if "locator" not in s
    ]
    for span in spans:
        span.pop("_start", None)
        span.pop("_end", None)
    span_ids = [s["id"] for s in spans]

    claims = []
    for number in range(draw(st.integers(1, 4))):
        claim: dict[str, Any] = {"id": f"c{number}", "text": f"Claim {number}."}
        if draw(st.booleans()):
            claim["applies_at"] = draw(st.sampled_from(TIMES))
        if draw(st.booleans()):
            claim["consequential"] = draw(st.booleans())
        claims.append(claim)
    claim_ids = [c["id"] for c in claims]

    questions = []
    for number in range(draw(st.integers(1, 3))):
        required = draw(st.lists(st.sampled_from(claim_ids), min_size=0, max_size=3, unique=True))
        questions.append({"id": f"q{number}", "text": f"Question {number}?", "claims": required})

    set_names = iter(SET_IDS)
    evidence_sets = []
    members_of: dict[str, list[list[str]]] = {}
    for claim_id in claim_ids:
        for _ in range(draw(st.sampled_from((1, 2, 2, 0)))):
            name = next(set_names, None)
            if name is None:
                break
            members = draw(st.lists(st.sampled_from(span_ids), min_size=1, max_size=3, unique=True))
            evidence_sets.append(
                {
                    "id": name,
                    "claim": claim_id,
                    "members": members,
                    "inference": "generated",
                    "status": draw(st.sampled_from(["adjudicated"] * 3 + ["proposed", "rejected"])),
                    "annotation": {"version": 1, "by": "annotator", "at": "2026-01-01"},
                }
            )
            members_of.setdefault(claim_id, []).append(members)

    contradictions = []
    for number in range(draw(st.integers(0, 2))):
        status = draw(st.sampled_from(["resolved", "resolved", "unresolved"]))
        record: dict[str, Any] = {
            "id": f"k{number}",
            "claim": draw(st.sampled_from(claim_ids)),
            "span": draw(st.sampled_from(span_ids)),
            "status": status,
        }
        if status == "resolved" or draw(st.booleans()):
            record["decision"] = "reviewed"
        contradictions.append(record)

    runs = []
    for number in range(draw(st.integers(1, 2))):
        runs.append(
            {
                "id": f"run-{number}",
                "evaluation": draw(st.sampled_from([e["id"] for e in evaluations])),
                "system": "rag",
                "started_at": "2026-06-01T12:00:00Z",
            }
        )

    cases = []
    for run in runs:
        for question in questions:
            if draw(st.integers(0, 3)) == 3:
                continue
            case: dict[str, Any] = {"run": run["id"], "question": question["id"]}
            targets = question["claims"] or claim_ids
            preferred = draw(st.sampled_from(members_of.get(draw(st.sampled_from(targets)), [[]])))
            case["retrieved"] = _delivered(draw, versions, positioned, span_ids, preferred)
            if draw(st.booleans()):
                case["abstained"] = draw(st.booleans())
            outputs = []
            for n in range(draw(st.sampled_from((1, 2, 3, 0)))):
                choice = draw(st.integers(0, 7))
                if choice == 7:
                    asserted = None  # an extra assertion
                elif choice == 6:
                    asserted = draw(st.sampled_from(claim_ids))  # perhaps not required
                else:
                    asserted = draw(st.sampled_from(question["claims"] or claim_ids))
                families = members_of.get(asserted, []) if asserted else []
                preferred = draw(st.sampled_from(families)) if families else []
                output: dict[str, Any] = {
                    "id": f"{run['id']}/{question['id']}/o{n}",
                    "text": "generated",
                    "claim": asserted,
                    # null: nobody judged it (acceptance.md, rule unknown correctness).
                    "correct": draw(st.sampled_from([True, True, True, False, None])),
                }
                cites = _delivered(draw, versions, positioned, span_ids, preferred)
                if cites or draw(st.booleans()):
                    output["cites"] = cites
                outputs.append(output)
            if outputs or draw(st.booleans()):
                case["outputs"] = outputs
            cases.append(case)

    # Structured judgments (docs/spec/adjudication.md): initial and final, on
    # sets, contradictions and extra assertions; one load records at most one
    # final judgment of a subject's question ("Recording"), and times never order.
    subjects = [("set", g["id"]) for g in evidence_sets]
    subjects += [("contradiction", k["id"]) for k in contradictions]
    subjects += [
        ("extra", o["id"]) for c in cases for o in c.get("outputs") or [] if o["claim"] is None
    ]
    # Admissibility judgments on spans and versions: the basis for accepting a premise.
    subjects += [("admissible", s["id"]) for s in spans] + [
        ("admissible", v["id"]) for v in versions
    ]
    judgments = []
    decided: set[tuple[str, str]] = set()
    for number in range(draw(st.integers(0, 4)) if subjects else 0):
        kind, subject = draw(st.sampled_from(subjects))
        if kind == "set":
            question = draw(st.sampled_from(["entailment", "alternatives", "minimality"]))
        elif kind == "admissible":
            question = "admissibility"
        else:
            question = "contradiction" if kind == "contradiction" else "boundary"
        judged: dict[str, Any] = {
            "id": f"j{number}",
            "subject": subject,
            "question": question,
            "decision": draw(st.sampled_from(JUDGMENT_TERMS[question])),
            "by": f"reviewer-{draw(st.integers(0, 2))}",
            "final": draw(st.booleans()),
            "reason": f"generated {number}",
        }
        group = "re-annotation" if question in ("entailment", "alternatives") else question
        if judged["final"] and (subject, group) in decided:
            judged["final"] = False
        if judged["final"]:
            decided.add((subject, group))
        if draw(st.booleans()):
            judged["at"] = draw(st.sampled_from(["2026-06-02", "2026-06-03T10:00:00Z"]))
        judgments.append(judged)

    # acceptance.md "Not applicable": about one claim in four, for some evaluations. Drawn
    # last, so the rest of a ledger is drawn as before this field existed.
    names = [e["id"] for e in evaluations]
    for claim in claims:
        if draw(st.integers(0, 3)) == 0:
            marked = draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
            claim["not_applicable"] = [
                {"evaluation": e, "reason": draw(st.sampled_from(NOT_APPLICABLE))} for e in marked
            ]

    ledger: dict[str, Any] = {
        "ledger": 1,
        "evaluations": evaluations,
        "readers": [{"id": r} for r in readers],
        "sources": sources,
        "versions": versions,
        "spans": spans,
        "questions": questions,
        "claims": claims,
        "evidence_sets": evidence_sets,
        "contradictions": contradictions,
        "runs": runs,
        "cases": cases,
        "judgments": judgments,
    }
    check_valid(ledger)
    return ledger


def check_valid(ledger: dict[str, Any]) -> None:
    """Raise ``AssertionError`` when ``ledger`` breaks a rule of docs/spec/ledger.md "Errors"."""
    kinds = (
        "evaluations",
        "readers",
        "sources",
        "versions",
        "spans",
        "questions",
        "claims",
        "evidence_sets",
        "contradictions",
        "runs",
    )
    ids: dict[str, set[str]] = {}
    for kind in kinds:
        seen = [r["id"] for r in ledger.get(kind) or []]
        assert len(seen) == len(set(seen)), f"duplicate {kind} id"
        ids[kind] = set(seen)
    outputs = [o["id"] for c in ledger.get("cases") or [] for o in c.get("outputs") or []]
    assert len(outputs) == len(set(outputs)), "duplicate output id"
    keys = [(c["run"], c["question"]) for c in ledger.get("cases") or []]
    assert len(keys) == len(set(keys)), "two cases for one (run, question)"

    for e in ledger.get("evaluations") or []:
        assert e["reader"] in ids["readers"]
        _instant(e["observation_cutoff"])
    versions = {v["id"]: v for v in ledger.get("versions") or []}
    for v in versions.values():
        assert v["source"] in ids["sources"]
        _instant(v["observed_at"])
        for name in ("published_at", "invalidated_at"):
            if v.get(name):
                _instant(v[name])
        effective = v.get("effective") or {}
        if effective.get("from") and effective.get("until"):
            assert _instant(effective["from"]) < _instant(effective["until"])
        assert set(v.get("readers") or ()) <= ids["readers"]
        if v.get("revision_of"):
            assert v["revision_of"] in versions
        assert not ("text" in v and "file" in v)

    def placed(text: str, item: dict[str, Any]) -> tuple[int, int]:
        if "start" in item:
            start, end = item["start"], item["end"]
            assert 0 <= start < end <= len(text)
            if "quote" in item:
                assert text[start:end] == item["quote"], "quote not at its offsets"
            return start, end
        quote, prefix, suffix = item["quote"], item.get("prefix"), item.get("suffix")
        hits = [
            at
            for at in range(len(text))
            if text.startswith(quote, at)
            and (prefix is None or text[:at].endswith(prefix))
            and (suffix is None or text[at + len(quote) :].startswith(suffix))
        ]
        assert len(hits) == 1, "a quote must occur exactly once (with its prefix / suffix)"
        return hits[0], hits[0] + len(quote)

    for s in ledger.get("spans") or []:
        assert "[" not in s["id"], "span ids must not look like inline span ids"
        v = versions[s["version"]]
        if "locator" in s:
            assert "text" not in v and not {"start", "end", "quote"} & set(s)
        else:
            assert "text" in v
            placed(v["text"], s)
        if s.get("readers") is not None:
            assert set(s["readers"]) <= ids["readers"]
            if v.get("readers"):  # an empty or absent list is public
                assert set(s["readers"]) <= set(v["readers"]), "span readers widen the version's"
    for q in ledger.get("questions") or []:
        assert set(q["claims"]) <= ids["claims"]
    for c in ledger.get("claims") or []:
        if c.get("applies_at"):
            _instant(c["applies_at"])
        marked = [entry["evaluation"] for entry in c.get("not_applicable") or []]
        assert set(marked) <= ids["evaluations"], "not_applicable names an unknown evaluation"
        assert len(marked) == len(set(marked)), "not_applicable names an evaluation twice"
        assert all(entry["reason"].strip() for entry in c.get("not_applicable") or [])
    for g in ledger.get("evidence_sets") or []:
        assert g["claim"] in ids["claims"]
        assert g["members"] and len(g["members"]) == len(set(g["members"]))
        assert set(g["members"]) <= ids["spans"]
        assert g["status"] in ("adjudicated", "proposed", "rejected")
    for k in ledger.get("contradictions") or []:
        assert k["claim"] in ids["claims"] and k["span"] in ids["spans"]
        assert k["status"] in ("resolved", "unresolved")
        if k["status"] == "resolved":
            assert k.get("decision")
    for r in ledger.get("runs") or []:
        assert r["evaluation"] in ids["evaluations"]
    for case in ledger.get("cases") or []:
        assert case["run"] in ids["runs"] and case["question"] in ids["questions"]
        delivered = list(case.get("retrieved") or [])
        for o in case.get("outputs") or []:
            assert o["claim"] is None or o["claim"] in ids["claims"]
            delivered += o.get("cites") or []
        for item in delivered:
            if isinstance(item, str):
                assert item in ids["spans"]
            else:
                v = versions[item["version"]]
                assert "text" in v, "inline span on a withheld version"
                placed(v["text"], item)
