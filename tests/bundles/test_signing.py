"""Signed bundles: the W3C eddsa-rdfc-2022 test vectors, keys, proofs, and tampering."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import stat
import threading
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from click.testing import CliRunner
from conftest import CEDAR, required, shared_data

import hopgate
from hopgate.bundles.export import FORMATS, export_bundle, write_export
from hopgate.bundles.proofs import PROOFS, file_dataset, sign_directory
from hopgate.bundles.signing import (
    ProofOptions,
    SigningKey,
    b58decode,
    b58encode,
    canonical_nquads,
    check_canonical,
    check_dataset,
    new_key,
    proof_configuration,
    read_private_key,
    read_public_key,
    sign_canonical,
    sign_dataset,
    write_key,
)
from hopgate.bundles.signing import hash_data as combined_hash
from hopgate.bundles.verify import verify
from hopgate.cli import cli
from hopgate.errors import SigningError
from hopgate.report.build import build_report
from hopgate.store import catalog
from hopgate.vocab import CATALOG_GRAPH

ROOT = Path(__file__).resolve().parents[2]


def _vector(name: str) -> bytes:
    """A file of the W3C test vectors (../shared/data; skipped without, failed under CI)."""
    return shared_data("w3c-eddsa-rdfc-2022", name).read_bytes()


# --- the specification's own test vectors --------------------------------------------------


@pytest.mark.conformance
def test_the_w3c_key_pair_decodes_and_derives_its_public_key() -> None:
    pair = json.loads(_vector("keyPair.json"))
    key = SigningKey.from_multibase(pair["privateKeyMultibase"])
    assert key.public_multibase == pair["publicKeyMultibase"]
    assert key.private_multibase == pair["privateKeyMultibase"]
    assert b58decode(pair["publicKeyMultibase"][1:])[:2] == bytes.fromhex("ed01")


@pytest.mark.conformance
def test_canonical_forms_and_hashes_match_the_w3c_vectors() -> None:
    canon_doc = _vector("canonDocDataInt.txt")
    document = canonical_nquads(ox.parse(canon_doc, format=ox.RdfFormat.N_QUADS))
    assert document == canon_doc
    assert hashlib.sha256(document).hexdigest() == _vector("docHashDataInt.txt").decode().strip()
    config = json.loads(_vector("proofConfigDataInt.json"))
    options = ProofOptions(
        created=config["created"],
        verification_method=config["verificationMethod"],
        proof_purpose=config["proofPurpose"],
    )
    configuration = canonical_nquads(proof_configuration(options))
    assert configuration == _vector("proofCanonDataInt.txt")
    assert (
        hashlib.sha256(configuration).hexdigest()
        == _vector("proofHashDataInt.txt").decode().strip()
    )
    assert (
        combined_hash(document, configuration).hex()
        == _vector("combinedHashDataInt.txt").decode().strip()
    )


@pytest.mark.conformance
def test_the_signer_reproduces_and_the_verifier_accepts_the_w3c_signature() -> None:
    pair = json.loads(_vector("keyPair.json"))
    key = SigningKey.from_multibase(pair["privateKeyMultibase"])
    document = _vector("canonDocDataInt.txt")
    configuration = _vector("proofCanonDataInt.txt")
    value = sign_canonical(key, document, configuration)
    assert value == _vector("sigBTC58DataInt.txt").decode().strip()
    assert b58decode(value[1:]).hex() == _vector("sigHexDataInt.txt").decode().strip()
    assert check_canonical(pair["publicKeyMultibase"], document, configuration, value)
    # One quad changed, or another key: refused.
    changed = document.replace(b"The School of Examples", b"The School of Forgeries")
    assert not check_canonical(pair["publicKeyMultibase"], changed, configuration, value)
    other = new_key().public_multibase
    assert not check_canonical(other, document, configuration, value)


@pytest.mark.conformance
def test_the_verifier_accepts_the_signed_w3c_credential_proof() -> None:
    signed = json.loads(_vector("signedDataInt.json"))
    proof = dict(signed["proof"])
    document = ox.parse(_vector("canonDocDataInt.txt"), format=ox.RdfFormat.N_QUADS)
    assert check_dataset(list(document), proof) is None
    proof["created"] = "2023-02-24T23:36:39Z"
    assert "does not verify" in (check_dataset(list(document), proof) or "")


def test_base58_round_trips_leading_zeros() -> None:
    for data in (b"", b"\0", b"\0\0\x01", bytes(range(40))):
        assert b58decode(b58encode(data)) == data
    with pytest.raises(SigningError, match="not base58btc"):
        b58decode("0OIl")


# --- keys ---------------------------------------------------------------------------------


def test_keys_are_written_0600_never_overwritten_and_read_back(tmp_path: Path) -> None:
    key = new_key()
    private, public = write_key(key, tmp_path / "alice.key")
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert read_private_key(private).public_multibase == key.public_multibase
    assert read_public_key(str(public)) == key.public_multibase
    assert read_public_key(f"did:key:{key.public_multibase}") == key.public_multibase
    with pytest.raises(SigningError, match="never overwritten"):
        write_key(new_key(), tmp_path / "alice.key")
    private.chmod(0o644)
    with pytest.raises(SigningError, match="readable by others"):
        read_private_key(private)
    # The .pub file given for the private key is called that, not told to be made private.
    with pytest.raises(SigningError, match="no secretKeyMultibase"):
        read_private_key(public)
    # A character outside base58's alphabet names the file and field, as a wrong length does.
    data = json.loads(public.read_text(encoding="utf-8"))
    data["publicKeyMultibase"] = "z0" + data["publicKeyMultibase"][2:]
    public.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(SigningError) as caught:
        read_public_key(str(public))
    assert str(caught.value).startswith(f"{public}: publicKeyMultibase: not base58btc")


# --- signed export directories -------------------------------------------------------------


def _signed_directory(store: Any, out: Path, key: SigningKey) -> None:
    for fmt in FORMATS:
        write_export(export_bundle(store, format=fmt, run="sys-a", with_text=True), out)
    sign_directory(out, key, by="Alice Example")


def test_a_signed_export_verifies_and_names_its_signer(cedar: Any, tmp_path: Path) -> None:
    key = new_key()
    _signed_directory(cedar, tmp_path, key)
    report = verify(tmp_path, trusted=[key.public_multibase])
    assert report.ok, report.problems
    assert report.signatures_checked == len(FORMATS)
    assert report.signers == [f"Alice Example (did:key:{key.public_multibase})"]
    # Another key is not trusted.
    report = verify(tmp_path, trusted=[new_key().public_multibase])
    assert not report.ok
    assert all("no valid proof by a trusted key" in p for p in report.problems)


def test_a_verdict_rewritten_consistently_everywhere_is_caught(cedar: Any, tmp_path: Path) -> None:
    """The attack of issue 15: edit a verdict in every file and re-hash the manifest."""
    key = new_key()
    _signed_directory(cedar, tmp_path, key)
    manifest_path = tmp_path / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for name in manifest["files"]:
        path = tmp_path / name
        data = path.read_bytes()
        forged = data.replace(b"hg:Reject", b"hg:Accept").replace(b"ns#Reject", b"ns#Accept")
        assert forged != data, name
        path.write_bytes(forged)
        manifest["files"][name]["sha256"] = hashlib.sha256(forged).hexdigest()
        manifest["files"][name]["bytes"] = len(forged)
    manifest_path.write_text(json.dumps(manifest))
    report = verify(tmp_path)
    failed = {p.split(":", 1)[0] for p in report.problems if "signature does not verify" in p}
    assert failed == set(manifest["files"]), report.problems
    # The command line says which files failed, and exits 1.
    result = CliRunner().invoke(cli, ["verify", str(tmp_path), "--trust", key.public_multibase])
    assert result.exit_code == 1
    assert "FAILED: export.trig: proof by Alice Example" in result.output


def test_a_forged_signer_name_or_time_breaks_the_proof(cedar: Any, tmp_path: Path) -> None:
    key = new_key()
    _signed_directory(cedar, tmp_path, key)
    proofs = json.loads((tmp_path / PROOFS).read_text())
    proofs["proofs"]["export.trig"][0]["signer"]["name"] = "Mallory"
    proofs["proofs"]["export.provn"][0]["created"] = "2020-01-01T00:00:00Z"
    (tmp_path / PROOFS).write_text(json.dumps(proofs))
    problems = verify(tmp_path).problems
    assert any(p.startswith("export.trig: proof by Mallory") for p in problems), problems
    assert any(p.startswith("export.provn: proof by Alice") for p in problems), problems


def test_an_unsigned_file_beside_signed_ones_and_a_removed_proof_are_reported(
    cedar: Any, tmp_path: Path
) -> None:
    key = new_key()
    _signed_directory(cedar, tmp_path, key)
    proofs = json.loads((tmp_path / PROOFS).read_text())
    del proofs["proofs"]["export.trig"]
    (tmp_path / PROOFS).write_text(json.dumps(proofs))
    assert verify(tmp_path).problems == ["export.trig: not signed (no proof in proofs.json)"]
    # Unsigned directories still verify by manifest, unless a trusted key is demanded.
    (tmp_path / PROOFS).unlink()
    assert verify(tmp_path).ok
    assert not verify(tmp_path, trusted=[key.public_multibase]).ok


def test_two_signers_make_a_proof_set(cedar: Any, tmp_path: Path) -> None:
    alice, bob = new_key(), new_key()
    _signed_directory(cedar, tmp_path, alice)
    sign_directory(tmp_path, bob, by="Bob Example")
    sign_directory(tmp_path, bob, by="Bob Example")  # again: replaces Bob's proof
    proofs = json.loads((tmp_path / PROOFS).read_text())["proofs"]
    assert all(len(listed) == 2 for listed in proofs.values())
    report = verify(tmp_path, trusted=[bob.public_multibase])
    assert report.ok and len(report.signers) == 2


def test_sign_dataset_signs_the_dataset_not_its_spelling() -> None:
    key = new_key()
    quads = list(
        ox.parse(
            b'<urn:a> <urn:p> "x" <urn:g> .\n_:b <urn:p> <urn:a> .\n', format=ox.RdfFormat.N_QUADS
        )
    )
    proof = sign_dataset(key, quads, signer_iri="urn:alice", signer_name="Alice")
    assert check_dataset(list(reversed(quads)), proof) is None
    assert check_dataset(quads[:1], proof) is not None


def test_a_dataset_without_blank_nodes_has_the_canonical_form_rdfc_gives() -> None:
    """canonical_nquads writes a ground dataset without running RDFC-1.0: the same bytes."""
    data = (
        b'<urn:b> <urn:p> "two\\nlines"@en <urn:g> .\n'
        b'<urn:a> <urn:p> "x" <urn:g> .\n'
        b'<urn:a> <urn:p> "x" <urn:g> .\n'  # a dataset holds a quad once
        b'<urn:a> <urn:p> "1"^^<http://www.w3.org/2001/XMLSchema#integer> .\n'
        b'<urn:a> <urn:q> "\\u00e9t\\u00e9 \\t" .\n'
    )
    quads = list(ox.parse(data, format=ox.RdfFormat.N_QUADS))
    dataset = ox.Dataset(quads)
    dataset.canonicalize(ox.CanonicalizationAlgorithm.RDFC_1_0)
    written = (ox.serialize(dataset, format=ox.RdfFormat.N_QUADS) or b"").splitlines()
    expected = b"".join(sorted(line + b"\n" for line in written))
    assert canonical_nquads(quads) == expected
    assert canonical_nquads(reversed(quads)) == expected
    assert expected.count(b"\n") == 4


def test_keys_new_makes_the_keys_folder_on_a_fresh_home(tmp_path: Path) -> None:
    # The README's `hopgate keys new -o ~/.hopgate/ann.key`, with no ~/.hopgate yet.
    home = tmp_path / "home"
    home.mkdir()
    result = CliRunner().invoke(cli, ["keys", "new", "-o", str(home / ".hopgate" / "ann.key")])
    assert result.exit_code == 0, result.output
    folder = home / ".hopgate"
    assert sorted(p.name for p in folder.iterdir()) == ["ann.key", "ann.key.pub"]
    assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0  # the key's folder is private
    assert stat.S_IMODE((folder / "ann.key").stat().st_mode) == 0o600
    # A file where the folder should be: an error naming it, nothing written.
    blocked = tmp_path / "blocked"
    blocked.write_text("", encoding="utf-8")
    result = CliRunner().invoke(cli, ["keys", "new", "-o", str(blocked / "ann.key")])
    assert result.exit_code == 2 and f"{blocked}: cannot make the key's folder" in result.output


def test_cli_keys_export_sign_and_verify(tmp_path: Path) -> None:
    runner = CliRunner()
    store = ["--store", str(tmp_path / "store")]
    assert runner.invoke(cli, [*store, "load", str(CEDAR)]).exit_code == 0
    assert runner.invoke(cli, [*store, "evaluate"]).exit_code == 0
    result = runner.invoke(cli, ["keys", "new", "-o", str(tmp_path / "k.key")])
    assert result.exit_code == 0, result.output
    assert "did:key:z6Mk" in result.output
    out = tmp_path / "out"
    export = [*store, "export", "--run", "sys-a", "-o", str(out), "--sign", str(tmp_path / "k.key")]
    result = runner.invoke(cli, export)
    assert result.exit_code == 2 and "--by NAME" in result.output
    result = runner.invoke(cli, export, env={"HOPGATE_SIGNER": "Alice Example"})
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, [*store, "export", "--run", "sys-a", "--format", "provn",
                                 "-o", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["verify", str(out)])
    assert result.exit_code == 1 and "export.provn: not signed" in result.output
    result = runner.invoke(
        cli, ["sign", str(out), "--key", str(tmp_path / "k.key"), "--by", "Alice Example"]
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(cli, ["verify", str(out), "--trust", str(tmp_path / "k.key.pub")])
    assert result.exit_code == 0, result.output
    assert "signed by Alice Example" in result.output
    result = runner.invoke(cli, ["verify", str(out), "--trust", "did:key:nonsense"])
    assert result.exit_code == 2 and result.output.startswith("Error:")


def test_a_prov_record_hopgate_does_not_write_cannot_hide_beside_a_signature(
    cedar: Any, tmp_path: Path
) -> None:
    key = new_key()
    write_export(export_bundle(cedar, format="provn", run="sys-a"), tmp_path)
    sign_directory(tmp_path, key, by="Alice Example")
    path = tmp_path / "export.provn"
    data = path.read_bytes()
    forged = data.replace(b"\nendDocument", b"\n  wasInformedBy(run:sys-a, run:sys-a)\nendDocument")
    assert forged != data
    path.write_bytes(forged)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["files"]["export.provn"]["sha256"] = hashlib.sha256(forged).hexdigest()
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    problems = verify(tmp_path).problems
    assert any("a record hopgate does not write" in p for p in problems), problems


def test_signatures_are_checked_without_the_manifest(cedar: Any, tmp_path: Path) -> None:
    key = new_key()
    _signed_directory(cedar, tmp_path, key)
    (tmp_path / "manifest.json").unlink()
    report = verify(tmp_path, trusted=[key.public_multibase])
    assert report.signatures_checked == len(FORMATS)
    assert report.problems == ["manifest.json: missing (the signatures were checked without it)"]


def test_sign_and_verify_end_to_end_as_a_subprocess(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    program = shutil.which("hopgate") or str(Path(sys.executable).parent / "hopgate")
    env = {"PATH": str(Path(sys.executable).parent), "HOPGATE_SIGNER": "Ann Lee", "HOME": "/tmp"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [program, "--store", str(tmp_path / "store"), *args],
            capture_output=True, text=True, env=env, check=False, timeout=300,
        )  # fmt: skip

    assert run("load", str(CEDAR)).returncode == 0
    assert run("evaluate").returncode == 0
    assert run("keys", "new", "-o", str(tmp_path / "ann.key")).returncode == 0
    out = str(tmp_path / "out")
    done = run("export", "--run", "sys-a", "-o", out, "--sign", str(tmp_path / "ann.key"))
    assert done.returncode == 0, done.stderr
    done = run("verify", out, "--trust", str(tmp_path / "ann.key.pub"))
    assert done.returncode == 0 and "signed by Ann Lee" in done.stdout, done.stdout + done.stderr
    trig = tmp_path / "out" / "export.trig"
    trig.write_bytes(trig.read_bytes().replace(b"hg:Reject", b"hg:Accept"))
    done = run("verify", out, "--trust", str(tmp_path / "ann.key.pub"))
    assert done.returncode == 1 and "signature does not verify" in done.stdout
    assert "Traceback" not in done.stderr


def test_sign_refuses_a_file_changed_since_it_was_exported(cedar: Any, tmp_path: Path) -> None:
    write_export(export_bundle(cedar, format="trig", run="sys-a"), tmp_path)
    trig = tmp_path / "export.trig"
    trig.write_bytes(trig.read_bytes().replace(b"hg:Reject", b"hg:Accept"))
    with pytest.raises(SigningError, match="changed since it was exported"):
        sign_directory(tmp_path, new_key(), by="Alice Example")
    assert not (tmp_path / PROOFS).exists()


def test_a_file_with_blank_nodes_is_refused_before_canonicalization(
    cedar: Any, tmp_path: Path
) -> None:
    """hopgate writes no blank nodes; a crafted file of them could make RDFC-1.0 run for
    exponential time, so it is refused before canonicalizing."""
    key = new_key()
    write_export(export_bundle(cedar, format="trig", run="sys-a"), tmp_path)
    sign_directory(tmp_path, key, by="Alice Example")
    trig = tmp_path / "export.trig"
    ring = "".join(f"_:b{i} <urn:p> _:b{(i + 1) % 64} .\n" for i in range(64))
    trig.write_bytes(trig.read_bytes() + ring.encode())
    problems = verify(tmp_path).problems
    assert any("holds blank nodes" in p for p in problems), problems


# --- issue 25 item 4: a signature is shown only for what was signed ------------------------

FORGE_VERDICT = (b"hg:ReviseCitations", b"hg:Accept")


def _rehash(directory: Path, name: str) -> None:
    """What an attacker who rewrites a file does next: the manifest's entry made to match."""
    data = (directory / name).read_bytes()
    manifest = json.loads((directory / "manifest.json").read_text())
    manifest["files"][name].update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    (directory / "manifest.json").write_text(json.dumps(manifest))


def _set_proofs(directory: Path, proofs: Any) -> None:
    (directory / PROOFS).write_text(json.dumps(proofs))


@pytest.fixture(scope="module")
def signed_trig(cedar: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, SigningKey]:
    """One export.trig of run sys-a, signed by Ann Lee; tests copy it before changing it."""
    key = new_key()
    out = tmp_path_factory.mktemp("signed-trig")
    write_export(export_bundle(cedar, format="trig", run="sys-a"), out)
    sign_directory(out, key, by="Ann Lee")
    return out, key


def _copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target / "copy")
    return target / "copy"


@pytest.mark.parametrize("listed", [{"export.trig": []}, {}], ids=["empty-list", "no-list"])
def test_an_empty_or_missing_proof_list_is_no_signature(
    signed_trig: tuple[Path, SigningKey], tmp_path: Path, listed: dict[str, Any]
) -> None:
    """Issue 25 4(a): a rewritten file whose proof list is emptied is not "signed by" anyone."""
    out, key = signed_trig
    out = _copy(out, tmp_path)
    trig = out / "export.trig"
    trig.write_bytes(trig.read_bytes().replace(*FORGE_VERDICT))
    _rehash(out, "export.trig")
    _set_proofs(out, {"proofs": listed})
    for trusted in (None, [key.public_multibase]):
        report = verify(out, trusted=trusted)
        assert not report.ok and report.signers == []
        assert any(p.startswith("export.trig: not signed") for p in report.problems)
    for trust in ([], ["--trust", key.public_multibase]):
        result = CliRunner().invoke(cli, ["verify", str(out), *trust])
        assert result.exit_code == 1, result.output
        assert "signed by" not in result.output and " intact;" not in result.output


def test_the_report_names_the_signed_file_and_states_it_equals_the_rendered_bundle(
    cedar: Any, signed_trig: tuple[Path, SigningKey]
) -> None:
    """Issue 25 4(b): the signature line names the signed file's digest and the comparison."""
    out, key = signed_trig
    report = build_report(
        cedar, run="sys-a", pictures=0, signed_export=out, trusted=[key.public_multibase]
    )
    digest = hashlib.sha256((out / "export.trig").read_bytes()).hexdigest()
    line = report.header.signature
    assert line.startswith("signed by Ann Lee") and "by a trusted key" in line, line
    assert f"export.trig (sha256:{digest})" in line and "equals the rendered bundle" in line
    assert not report.signature.failed


@pytest.fixture(scope="module")
def cedar_on_disk(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The worked example in an on-disk store, exported and signed by Ann Lee (CLI)."""
    base = tmp_path_factory.mktemp("cedar-disk")
    store, key, out = base / "store", base / "ann.key", base / "out"
    runner = CliRunner()
    assert runner.invoke(cli, ["--store", str(store), "load", str(CEDAR)]).exit_code == 0
    assert runner.invoke(cli, ["--store", str(store), "evaluate"]).exit_code == 0
    assert runner.invoke(cli, ["keys", "new", "-o", str(key)]).exit_code == 0
    export = ["--store", str(store), "export", "--run", "sys-a", "-o", str(out)]
    result = runner.invoke(cli, [*export, "--sign", str(key), "--by", "Ann Lee"])
    assert result.exit_code == 0, result.output
    return store, key, out


def _report(store: Path, out: Path, key: Path) -> Any:
    return CliRunner().invoke(
        cli,
        ["--store", str(store), "report", "--run", "sys-a", "--format", "md",
         "--signed-export", str(out), "--trust", f"{key}.pub"],
    )  # fmt: skip


def test_a_store_rewritten_after_signing_fails_the_report_loudly(
    cedar_on_disk: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """Issue 25 4(b), the attack: any writer of the store rewrites the evaluation's bundle in
    place and deletes the snapshots; the gate passes (it reads the store), and the report
    must not say "signed by Ann Lee" over it."""
    store, key, out = cedar_on_disk
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    rewritten = ox.Store(str(copy))
    rewritten.update(
        "PREFIX hg: <https://w3id.org/hopgate/ns#> "
        "DELETE { GRAPH ?g { ?card hg:verdict ?v } } INSERT { GRAPH ?g { ?card hg:verdict hg:Accept } } "
        "WHERE { GRAPH ?g { ?card a hg:AcceptanceCard ; hg:verdict ?v } FILTER(?v != hg:Accept) }"
    )
    rewritten.flush()
    del rewritten
    shutil.rmtree(copy / "hopgate-snapshots")
    gate = CliRunner().invoke(cli, ["--store", str(copy), "gate", "--run", "sys-a"])
    assert gate.exit_code == 0, gate.output  # the attack's premise
    result = _report(copy, out, key)
    assert result.exit_code == 1, result.output
    line = next(x for x in result.stdout.splitlines() if x.startswith("| Signature |"))
    assert "CHECK FAILED" in line and "does not equal the rendered bundle" in line, line
    assert "signed by" not in line
    assert result.output.count("Error:") == 1 and "Traceback" not in result.output


def test_a_signature_of_the_bundle_alone_does_not_vouch_for_the_texts_the_report_shows(
    cedar: Any, tmp_path: Path
) -> None:
    """The report shows the loads' texts (outputs, claims, quotes) beside the bundle's
    verdicts: a signed export of the bundle alone (--graph) left a store writer free to
    rewrite an output's text under a "signed by" line."""
    key = new_key()
    bundle = catalog.latest(cedar, "sys-a").bundle
    write_export(export_bundle(cedar, format="trig", graph=bundle), tmp_path)
    sign_directory(tmp_path, key, by="Ann Lee")
    report = build_report(
        cedar, run="sys-a", pictures=0, signed_export=tmp_path, trusted=[key.public_multibase]
    )
    line = report.header.signature
    assert report.signature.failed and line.startswith("CHECK FAILED"), line
    assert "not the load graph(s) whose texts the report shows" in line
    assert "signed by" not in line
    # Nor when a store writer has moved the load graph the evaluation used out of its
    # name (into the catalog's, where the run stays known), so that no check reads it.
    copy = hopgate.open_store(None)
    loads, into = set(catalog.load_graphs(cedar)), ox.NamedNode(CATALOG_GRAPH)
    copy.add_quads(
        ox.Quad(q.subject, q.predicate, q.object, into) if q.graph_name.value in loads else q
        for q in cedar._store
    )
    lost = build_report(
        copy, run="sys-a", pictures=0, signed_export=tmp_path, trusted=[key.public_multibase]
    )
    assert lost.signature.failed and "signed by" not in lost.header.signature


def test_the_report_exits_non_zero_when_its_header_says_check_failed(
    cedar_on_disk: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    store, key, out = cedar_on_disk
    assert _report(store, out, key).exit_code == 0
    tampered = _copy(out, tmp_path)
    trig = tampered / "export.trig"
    trig.write_bytes(trig.read_bytes().replace(*FORGE_VERDICT))
    result = _report(store, tampered, key)
    assert "| Signature | CHECK FAILED" in result.stdout
    assert result.exit_code == 1 and "Error:" in result.output


def _foreign_xml_attribute(data: bytes) -> bytes:
    return data.replace(b"<prov:entity prov:id=", b'<prov:entity approvedBy="CEO" prov:id=', 1)


def _unmapped_jsonld_key(data: bytes) -> bytes:
    return data.replace(b'[{"@id":', b'[{"approvedBy":"CEO","@id":', 1)


def _provn_blank_line(data: bytes) -> bytes:
    return data.replace(b"\nendDocument", b"\n  \nendDocument", 1)


def _provn_time_as_string(data: bytes) -> bytes:
    # Once the same dataset: prov read the dateTime into a Python datetime, mapped as its text.
    return re.sub(
        rb'hg:claimTime="(\d{4}-\d\d-\d\d)T([^"]*)" %% xsd:dateTime',
        rb'hg:claimTime="\1 \2"',
        data,
        count=1,
    )


@pytest.mark.parametrize(
    ("fmt", "change", "same_dataset"),
    [
        ("provxml", _foreign_xml_attribute, True),
        ("jsonld", _unmapped_jsonld_key, True),
        ("provn", _provn_blank_line, True),
        ("provn", _provn_time_as_string, False),
    ],
    ids=[
        "provxml-foreign-attribute",
        "jsonld-unmapped-key",
        "provn-blank-line",
        "provn-datetime-as-string",
    ],
)
def test_what_a_format_carries_beyond_the_dataset_is_covered(
    cedar: Any, tmp_path: Path, fmt: str, change: Any, same_dataset: bool
) -> None:
    """Issue 25 4(c): two documents, one dataset; the second is not the signed one. The
    PROV-N dateTime written as a plain string now maps to another dataset too."""
    write_export(export_bundle(cedar, format=fmt, run="sys-a"), tmp_path)
    sign_directory(tmp_path, new_key(), by="Ann Lee")
    path = next(p for p in tmp_path.iterdir() if p.name.startswith("export."))
    before = canonical_nquads(file_dataset(path, fmt))
    data = path.read_bytes()
    path.write_bytes(change(data))
    assert path.read_bytes() != data
    assert (canonical_nquads(file_dataset(path, fmt)) == before) is same_dataset
    _rehash(tmp_path, path.name)
    problems = verify(tmp_path).problems
    assert len(problems) == 1 and problems[0].startswith(f"{path.name}: proof by Ann Lee")
    why = "not the signed bytes" if same_dataset else "signature does not verify"
    assert why in problems[0], problems


@pytest.mark.parametrize(
    "field", [("reader", "public"), ("scope", "run sys-b"), ("with_text", True)]
)
def test_the_manifest_fields_are_inside_the_signed_data(
    signed_trig: tuple[Path, SigningKey], tmp_path: Path, field: tuple[str, Any]
) -> None:
    """Issue 25 4(c): the manifest's reader and scope of a file are what its signer signed."""
    out = _copy(signed_trig[0], tmp_path)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["files"]["export.trig"][field[0]] = field[1]
    (out / "manifest.json").write_text(json.dumps(manifest))
    problems = verify(out).problems
    assert len(problems) == 1 and f"its {field[0]}" in problems[0], problems
    assert "differs from the signed" in problems[0]


def test_the_manifest_cannot_list_a_version_no_signed_file_states(
    signed_trig: tuple[Path, SigningKey], tmp_path: Path
) -> None:
    out = _copy(signed_trig[0], tmp_path)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["versions"]["forged@1"] = "sha256:" + "0" * 64
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert verify(out).problems == [
        "manifest.json: version 'forged@1' is stated by no export file of the directory"
    ]


def test_a_manifest_field_added_after_signing_is_a_problem(
    signed_trig: tuple[Path, SigningKey], tmp_path: Path
) -> None:
    """A field no signature covers, in a file's entry or at the top, read as signed beside
    "intact ... signed by" (security review, 7 December)."""
    out = _copy(signed_trig[0], tmp_path)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["files"]["export.trig"]["approved_by"] = "Chief Auditor"
    manifest["note"] = "approved for release"
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert verify(out).problems == [
        "manifest.json: field 'note' is not a manifest field (nothing checks or signs it)",
        "manifest.json: export.trig: field 'approved_by' is not a field of a file's entry "
        "(nothing checks or signs it)",
    ]
    # The one free-text field no proof covers names the hopgate that wrote it, nothing else.
    manifest = json.loads((signed_trig[0] / "manifest.json").read_text())
    assert manifest["generator"].startswith("hopgate ") and not verify(signed_trig[0]).problems
    manifest["generator"] = "hopgate 0.1.0, approved by the Chief Auditor"
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert verify(out).problems == [
        "manifest.json: field 'generator' is 'hopgate 0.1.0, approved by the Chief Auditor', "
        "not 'hopgate VERSION' (nothing signs it)"
    ]


def test_a_card_picture_beside_signed_files_is_signed_too(tmp_path: Path) -> None:
    """Issue 25 4(d): sign signs the picture's bytes; verify then holds it to them."""
    if shutil.which("dot") is None:
        required("graphviz's dot is not installed (Debian: apt-get install graphviz)")
    runner = CliRunner()
    store, out, key = tmp_path / "store", tmp_path / "out", tmp_path / "k.key"
    assert runner.invoke(cli, ["--store", str(store), "load", str(CEDAR)]).exit_code == 0
    assert runner.invoke(cli, ["--store", str(store), "evaluate"]).exit_code == 0
    assert runner.invoke(cli, ["keys", "new", "-o", str(key)]).exit_code == 0
    trust = read_public_key(f"{key}.pub")
    export = ["--store", str(store), "export", "-o", str(out)]
    assert runner.invoke(cli, [*export, "--run", "sys-a"]).exit_code == 0
    picture = [*export, "--card", "sys-a/qA/o1"]
    assert runner.invoke(cli, [*picture, "--format", "svg"]).exit_code == 0
    signed = sign_directory(out, read_private_key(key), by="Ann Lee")
    assert signed.files == ["export.svg", "export.trig"]
    report = verify(out, trusted=[trust])
    assert report.ok, report.problems
    assert report.signatures_checked == 2
    # A picture written with --sign is signed at once; a changed picture is caught.
    result = runner.invoke(
        cli, [*picture, "--format", "dot", "--sign", str(key), "--by", "Ann Lee"]
    )
    assert result.exit_code == 0, result.output
    assert verify(out, trusted=[trust]).ok
    svg = out / "export.svg"
    svg.write_bytes(svg.read_bytes().replace(b"</svg>", b"<text>approved</text></svg>"))
    _rehash(out, "export.svg")
    problems = verify(out).problems
    assert len(problems) == 1 and problems[0].startswith("export.svg: proof by Ann Lee")


def _proof_changed(**fields: Any) -> Any:
    def change(proof: dict[str, Any]) -> Any:
        for name, value in fields.items():
            path = name.split("__")
            target = proof
            for part in path[:-1]:
                target = target[part]
            if value is KeyError:
                del target[path[-1]]
            else:
                target[path[-1]] = value
        return proof

    return change


MALFORMED_PROOFS = {
    "signer-id-not-an-iri": (_proof_changed(signer__id="Ann Lee"), "'signer'"),
    "signer-id-a-number": (_proof_changed(signer__id=42), "'signer'"),
    "signer-a-list": (_proof_changed(signer=["Ann"]), "'signer'"),
    "signer-name-with-escape": (_proof_changed(signer__name="Ann\x1b[2J"), "'signer'"),
    "method-not-an-iri": (
        lambda p: {**p, "verificationMethod": p["verificationMethod"] + " x"},
        "'verificationMethod'",
    ),
    "purpose-not-an-iri": (_proof_changed(proofPurpose="assertion method"), "'proofPurpose'"),
    "created-not-a-time": (_proof_changed(created="yesterday"), "'created'"),
    "value-a-number": (_proof_changed(proofValue=12), "'proofValue'"),
    "value-huge": (_proof_changed(proofValue="z" + "2" * 200_000), "'proofValue'"),
    "created-missing": (_proof_changed(created=KeyError), "'created'"),
    "file-missing": (_proof_changed(file=KeyError), "signature does not verify"),
    "file-bytes-a-boolean": (_proof_changed(file__bytes=True), "'file'"),
    "file-digest-not-hex": (_proof_changed(file__sha256="z" * 64), "'file'"),
    "unsigned-field": (_proof_changed(note="approved by the CEO"), "'note'"),
    "not-an-object": (lambda p: "proof", "JSON object"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_PROOFS))
def test_a_malformed_proof_is_a_failed_proof_not_a_traceback(
    signed_trig: tuple[Path, SigningKey], tmp_path: Path, case: str
) -> None:
    """Issue 25 4(e): one clear problem naming the file and the field; exit 1, no traceback."""
    change, field_named = MALFORMED_PROOFS[case]
    out = _copy(signed_trig[0], tmp_path)
    proofs = json.loads((out / PROOFS).read_text())
    proofs["proofs"]["export.trig"] = [change(proofs["proofs"]["export.trig"][0])]
    _set_proofs(out, proofs)
    problems = verify(out).problems
    assert len(problems) == 1 and problems[0].startswith("export.trig: proof "), problems
    assert field_named in problems[0] and "\x1b" not in problems[0], problems
    result = CliRunner().invoke(cli, ["verify", str(out)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1, result.output


def test_a_proof_of_the_dataset_alone_is_not_a_signature_of_the_file(
    signed_trig: tuple[Path, SigningKey], tmp_path: Path
) -> None:
    """A proof as hopgate made them before it signed bytes: valid over the dataset, silent on
    the file; it covers nothing a reader is shown, so it is refused."""
    out, key = signed_trig
    out = _copy(out, tmp_path)
    dataset = file_dataset(out / "export.trig", "trig")
    proof = sign_dataset(key, dataset, signer_iri="urn:ann", signer_name="Ann Lee")
    _set_proofs(out, {"proofs": {"export.trig": [proof]}})
    problems = verify(out).problems
    assert len(problems) == 1 and "does not state the file's bytes" in problems[0], problems


MALFORMED_FILES: dict[str, Any] = {
    "directory": lambda path: path.mkdir(),
    "fifo": lambda path: os.mkfifo(path),
    "deep-nesting": lambda path: path.write_text("[" * 100_000 + "]" * 100_000),
    "long-number": lambda path: path.write_text(
        '{"proofs": {"export.trig": [' + "9" * 5000 + "]}}"
    ),
    "huge": lambda path: path.write_bytes(b" " * (5 << 20) + b"{}"),
    "proofs-a-list": lambda path: path.write_text('{"proofs": []}'),
    "list-an-object": lambda path: path.write_text('{"proofs": {"export.trig": {}}}'),
    "file-name-a-path": lambda path: path.write_text('{"proofs": {"../x.trig": []}}'),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_FILES))
def test_a_malformed_proofs_file_is_one_clear_problem(
    signed_trig: tuple[Path, SigningKey], tmp_path: Path, case: str
) -> None:
    """Issue 25 4(e): a FIFO, a directory, deep or huge JSON where proofs.json should be."""
    out = _copy(signed_trig[0], tmp_path)
    (out / PROOFS).unlink()
    MALFORMED_FILES[case](out / PROOFS)
    done: list[Any] = []
    worker = threading.Thread(target=lambda: done.append(verify(out)), daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert done, "verify did not return (a FIFO read blocks)"
    problems = done[0].problems
    assert problems and problems[0].startswith("proofs.json: "), problems
    assert not done[0].ok and done[0].signers == []
    result = CliRunner().invoke(cli, ["verify", str(out)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert "signed by" not in result.output


def test_a_manifest_entry_naming_a_path_is_neither_read_nor_signed(
    signed_trig: tuple[Path, SigningKey], tmp_path: Path
) -> None:
    """A manifest is input too: an entry naming a file outside the directory is refused."""
    out = _copy(signed_trig[0], tmp_path)
    outside = tmp_path / "outside.trig"
    outside.write_text("<urn:a> <urn:b> <urn:c> .\n")
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["files"]["../outside.trig"] = dict(manifest["files"]["export.trig"])
    (out / "manifest.json").write_text(json.dumps(manifest))
    problems = verify(out).problems
    assert problems == [
        "../outside.trig: not the name of an export file in the directory (a path?)"
    ]
    with pytest.raises(SigningError, match="not an export file the manifest lists"):
        sign_directory(out, signed_trig[1], by="Ann Lee")


def test_a_forged_cache_behind_the_report_fails_its_signature_line(
    cedar_on_disk: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    """The report renders an evaluation from caches: forging the recorded answers
    (hopgate.store.answers: those the gate reads and those only the report reads; an
    evaluation keeps no snapshot of its bundle), and their recorded digests, passes the
    gate, but the bundle's digest is in the signed export's provenance, so the signature
    line fails."""
    store, key, out = cedar_on_disk
    copy = tmp_path / "store"
    shutil.copytree(store, copy)
    # The peer sums' file (shown only with --peers), the figures' (counts and
    # intervention outcomes) and the review queue's hold no verdict to forge.
    caches = [
        path
        for path in (copy / "hopgate-snapshots").iterdir()
        if b"ns#verdict>" in path.read_bytes()
        or (
            "-answers-" in path.name
            and "-answers-peers-" not in path.name
            and "-answers-figures-" not in path.name
            and "-answers-queue-" not in path.name
        )
    ]
    assert len(caches) == 2  # the bundle's two files of answers with verdicts
    rewritten = ox.Store(str(copy))
    for cache in caches:
        data = cache.read_bytes()
        forged = re.sub(rb'ns#(ReviseCitations|Reject)([>"])', rb"ns#Accept\2", data)
        if "-answers-" in cache.name:
            # An IRI column keeps its common prefix once: the verdicts' names stand alone.
            forged = re.sub(rb'"(ReviseCitations|Reject)"', rb'"Accept"', forged)
            # The gate's rows say whether each output passes: every one does.
            header, *tables = forged.split(b"\n")
            requests = json.loads(header)["requests"]
            forged = b"\n".join(
                [header]
                + [
                    t.replace(b"false", b"true") if r.startswith('["gate"') else t
                    for r, t in zip(requests, tables[: len(requests)], strict=True)
                ]
                + tables[len(requests) :]
            )
        assert forged != data
        cache.write_bytes(forged)
        old, new = hashlib.sha256(data).hexdigest(), hashlib.sha256(forged).hexdigest()
        rewritten.update(
            f"PREFIX hg: <https://w3id.org/hopgate/ns#> "
            f"DELETE {{ GRAPH ?c {{ ?g hg:snapshotDigest ?d }} }} "
            f"INSERT {{ GRAPH ?c {{ ?g hg:snapshotDigest ?e }} }} "
            f'WHERE {{ GRAPH ?c {{ ?g hg:snapshotDigest ?d }} FILTER(CONTAINS(?d, "{old}")) '
            f'BIND(REPLACE(?d, "{old}", "{new}") AS ?e) }}'
        )
    rewritten.flush()
    del rewritten
    gate = CliRunner().invoke(cli, ["--store", str(copy), "gate", "--run", "sys-a"])
    assert gate.exit_code == 0, gate.output  # the premise: the forged cache is read
    result = _report(copy, out, key)
    assert result.exit_code == 1, result.output
    line = next(x for x in result.stdout.splitlines() if x.startswith("| Signature |"))
    assert "CHECK FAILED" in line and "does not equal the rendered bundle" in line, line
