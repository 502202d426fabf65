"""The user docs a newcomer reads: a short README with the two commands, links that resolve,
no branch history (docs/spec/ pages are checked by tests/test_spec_docs.py)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
USER_DOCS = [README, *sorted((ROOT / "docs").rglob("*.md")), ROOT / "queries" / "README.md"]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def test_the_readme_is_short_and_gives_the_two_commands() -> None:
    text = README.read_text("utf-8")
    assert len(text.splitlines()) <= 200
    assert "make demo" in text and "make test" in text


def test_every_relative_link_resolves() -> None:
    broken = []
    for page in USER_DOCS:
        for target in LINK.findall(page.read_text("utf-8")):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_readme_links_every_guide() -> None:
    text = README.read_text("utf-8")
    guides = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs" / "guide").glob("*.md"))
    assert guides and [g for g in guides if g not in text] == []


def test_no_branch_history_in_user_docs() -> None:
    history = re.compile(
        r"\b[Ii]ssue \d+\b|\bbefore issue\b|\bthis branch\b|\blast (round|session)\b"
    )
    found = [
        f"{page.relative_to(ROOT)}:{number}: {line.strip()}"
        for page in USER_DOCS
        for number, line in enumerate(page.read_text("utf-8").splitlines(), 1)
        if history.search(line)
    ]
    assert found == []


def test_every_test_docs_security_names_exists() -> None:
    """A promise in docs/security.md is held by a test that exists (a name with ``*`` is a prefix)."""
    text = (ROOT / "docs" / "security.md").read_text("utf-8")
    missing = []
    for cell in re.findall(r"^\|[^|]*\|([^|]*)\|$", text, flags=re.M):
        current: Path | None = None
        for file, name in re.findall(r"`(?:(tests/[\w/]+\.py))?(?:::([\w*]+))?[^`]*`", cell):
            if file:
                current = ROOT / file
                if not current.exists():
                    missing.append(file)
                    continue
            if name and current is not None:
                source = current.read_text("utf-8")
                pattern = re.escape(name).replace(r"\*", r"\w*")
                if not re.search(rf"def {pattern}\b", source):
                    missing.append(f"{current.relative_to(ROOT)}::{name}")
    assert missing == []
