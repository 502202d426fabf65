"""The test session's own rules (tests/conftest.py), run as a user runs the suite.

Under ``CI=true`` a missing requirement (here the shared data) fails instead of
skipping, and Hypothesis draws new examples on every run from a seed printed in
the session header, which ``HOPGATE_HYPOTHESIS_SEED`` replays.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: One test that reads the shared data (the W3C signing vectors).
DATA_TEST = (
    "tests/bundles/test_signing.py::test_the_w3c_key_pair_decodes_and_derives_its_public_key"
)


def _pytest(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        k: v for k, v in os.environ.items() if k not in ("CI", "HOPGATE_HYPOTHESIS_SEED")
    }
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *args],
        cwd=ROOT,
        env={**environment, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


def _seed(result: subprocess.CompletedProcess[str]) -> str:
    found = re.search(r"^hypothesis profile '([\w-]+)', seed (\d+)", result.stdout, re.M)
    assert found, result.stdout
    return f"{found.group(1)} {found.group(2)}"


def test_missing_data_fails_under_ci_and_each_ci_run_has_a_new_seed(tmp_path: Path) -> None:
    local = _pytest(DATA_TEST, HOPGATE_SHARED_DATA=str(tmp_path))
    assert local.returncode == 0 and "1 skipped" in local.stdout, local.stdout
    assert f"the shared data is not present: {tmp_path}" in local.stdout
    ci = _pytest(DATA_TEST, HOPGATE_SHARED_DATA=str(tmp_path), CI="true")
    assert ci.returncode == 1 and "1 failed" in ci.stdout, ci.stdout
    assert f"CI=true and the shared data is not present: {tmp_path}" in ci.stdout
    # Each CI session draws its Hypothesis seed anew and prints it; the seed replays.
    again = _pytest("--collect-only", DATA_TEST, CI="true")
    assert _seed(ci).startswith("hopgate-ci ") and _seed(again).startswith("hopgate-ci ")
    assert _seed(ci) != _seed(again)
    replay = _pytest("--collect-only", DATA_TEST, CI="true", HOPGATE_HYPOTHESIS_SEED="5")
    assert _seed(replay) == "hopgate-ci 5"
