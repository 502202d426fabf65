"""Signed judgments: a reviewer's Ed25519 signature over what a judgment says.

docs/spec/adjudication.md "Signed judgments". A ledger may give a judgment
any ``by``; a signature made with a key the reader trusts is what says who
stands behind it. ``hopgate judge --sign KEY`` signs the judgment's
**statement** (:func:`statement`: its id, subject, question, decision,
reviewer, claimed time, reason, whether final, and what it settles) with the
project's Data Integrity proofs (eddsa-rdfc-2022, :mod:`hopgate.bundles.signing`);
the proof travels in the judgment's ``proof`` field and is kept in the store
as written. Reading it (:func:`check`), the statement is rebuilt from what
the store holds of the judgment, so the signature covers exactly what a
reviewer is shown, and the key is compared with the trusted ones. A proof
that is malformed, or does not verify, is a failed signature, never an error.
It reads nothing from the store itself and writes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyoxigraph as ox

from hopgate import ids
from hopgate.audit.queue import JudgmentRecord
from hopgate.bundles.signing import (
    SigningKey,
    check_dataset,
    options_of,
    public_key_of,
    sign_dataset,
)
from hopgate.errors import LedgerError, SigningError
from hopgate.ingest.ledger import parse_time
from hopgate.vocab import HG, PROV, RDF_TYPE, XSD

#: What a signature's state is called (``Signature.state``).
UNSIGNED, TRUSTED, UNTRUSTED, UNCHECKED, INVALID = (
    "unsigned",
    "trusted",
    "untrusted",
    "unchecked",
    "invalid",
)


def _moment(value: str) -> str:
    """A claimed time in the one lexical form the loader stores (ledger.parse_time)."""
    return parse_time(value, file="judgment", where="at", field="at", record_id=None)


def statement(fields: Mapping[str, Any]) -> list[ox.Quad]:
    """The signed dataset of a judgment: what it says, with ledger ids (no store lookup).

    ``fields`` holds ``id``, ``subject``, ``by``, ``decision`` and, when
    given, ``at``, ``question``, ``reason``, ``final``, ``settles`` and ``machine`` (the
    record of a ledger, or a :class:`~hopgate.audit.queue.JudgmentRecord` as a
    dict). A judgment without a question (the old spelling) has no ``final``.
    """
    node = ox.NamedNode(ids.mint("judgment", str(fields["id"])))
    graph = ox.DefaultGraph()

    def quad(predicate: str, obj: ox.NamedNode | ox.Literal) -> ox.Quad:
        return ox.Quad(node, ox.NamedNode(predicate), obj, graph)

    quads = [
        quad(RDF_TYPE, ox.NamedNode(HG + "Judgment")),
        quad(HG + "ledgerId", ox.Literal(str(fields["id"]))),
        quad(HG + "judgesId", ox.Literal(str(fields["subject"]))),
        quad(PROV + "wasAttributedTo", ox.NamedNode(ids.mint("agent", str(fields["by"])))),
        quad(HG + "decision", ox.Literal(str(fields["decision"]))),
    ]
    if fields.get("at"):
        moment = _moment(str(fields["at"]))
        quads.append(
            quad(
                PROV + "generatedAtTime",
                ox.Literal(moment, datatype=ox.NamedNode(XSD + "dateTime")),
            )
        )
    if fields.get("reason"):
        quads.append(quad(HG + "reason", ox.Literal(str(fields["reason"]))))
    if fields.get("question") is not None:
        quads.append(quad(HG + "question", ox.Literal(str(fields["question"]))))
        final = "true" if fields.get("final") else "false"
        quads.append(quad(HG + "final", ox.Literal(final, datatype=ox.NamedNode(XSD + "boolean"))))
        for other in fields.get("settles") or ():
            quads.append(quad(HG + "settles", ox.NamedNode(ids.mint("judgment", str(other)))))
        if fields.get("machine"):
            # Only when true, so a reviewer's signed statement is what it always was
            # (docs/spec/adjudication.md "Machine triage").
            true = ox.Literal("true", datatype=ox.NamedNode(XSD + "boolean"))
            quads.append(quad(HG + "machine", true))
    return quads


def sign(fields: Mapping[str, Any], key: SigningKey) -> dict[str, Any]:
    """The proof of a judgment's statement, signed by ``key`` and naming its reviewer."""
    by = str(fields["by"])
    return sign_dataset(key, statement(fields), signer_iri=ids.mint("agent", by), signer_name=by)


@dataclass(frozen=True)
class Signature:
    """What a judgment's signature says to a reader with ``trusted`` keys (or none given)."""

    state: str
    signer: str | None = None
    key: str | None = None
    problem: str | None = None

    def describe(self) -> str:
        """One line for a reviewer (the signer's name is the proof's own, shown as data)."""
        who = self.signer or "(no name)"
        if self.state == UNSIGNED:
            return "unsigned"
        if self.state == TRUSTED:
            return f"signed by {who} with a trusted key"
        if self.state == UNTRUSTED:
            return f"signed by {who} with a key that is not trusted ({self.key})"
        if self.state == UNCHECKED:
            return f"signed by {who}; no trusted key given (--trust), so the key was not checked"
        problem = str(self.problem).removeprefix("signature does not verify: ")
        return f"signature does not verify: {problem}"

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: state, signer, key, problem and the line shown."""
        return {
            "state": self.state,
            "signer": self.signer,
            "key": self.key,
            "problem": self.problem,
            "text": self.describe(),
        }


def check(judgment: JudgmentRecord, trusted: Sequence[str] | None) -> Signature:
    """Whether ``judgment``'s proof signs what the store holds of it, and with a trusted key.

    ``trusted``: public Multikeys (:func:`hopgate.bundles.signing.read_public_key`);
    None when the reader gave none (the signature is then checked, the key not).
    """
    if judgment.proof is None:
        return Signature(UNSIGNED)
    fields = {
        "id": judgment.id,
        "subject": judgment.subject,
        "by": judgment.by,
        "at": judgment.at,
        "question": judgment.question,
        "decision": judgment.decision,
        "reason": judgment.reason,
        "final": judgment.final,
        "settles": sorted(judgment.settles),
        "machine": judgment.machine,
    }
    try:
        proof = json.loads(judgment.proof)
        options, _ = options_of(proof)
        key = public_key_of(options.verification_method)
        problem = check_dataset(statement(fields), proof)
    except (SigningError, LedgerError, ValueError, TypeError) as exc:
        return Signature(INVALID, problem=f"malformed proof ({exc})")
    if problem is not None:
        return Signature(INVALID, signer=options.signer_name, key=key, problem=problem)
    if trusted is None:
        return Signature(UNCHECKED, signer=options.signer_name, key=key)
    state = TRUSTED if key in set(trusted) else UNTRUSTED
    return Signature(state, signer=options.signer_name, key=key)


__all__ = [
    "INVALID",
    "TRUSTED",
    "UNCHECKED",
    "UNSIGNED",
    "UNTRUSTED",
    "Signature",
    "check",
    "sign",
    "statement",
]
