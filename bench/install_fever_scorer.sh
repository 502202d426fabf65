#!/usr/bin/env bash
# Install the FEVER scorer (PyPI fever-scorer 2.0.39) into the environment of
# PYTHON (default .venv/bin/python), for bench/real.py and for tests/audit/test_peers.py
# (`make install-test` runs it under CI=true).
#
# Its setup.py passes Python's builtin `license` object (license=license), so
# building its metadata fails ("'_Printer' object has no attribute 'split'").
# pip is asked to keep the unpacked sdist (--no-clean), the one line is
# patched to the repository's licence (Apache-2.0), and the copy installed.
set -euo pipefail
PYTHON=${PYTHON:-.venv/bin/python}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
TMPDIR=$work "$PYTHON" -m pip install --no-clean --no-deps --no-build-isolation \
    fever-scorer==2.0.39 >"$work/log" 2>&1 || true
src=$(find "$work" -maxdepth 3 -name setup.py -path '*fever-scorer*' | head -1)
if [ -z "$src" ]; then
    echo "could not unpack fever-scorer (see the pip log):" >&2
    cat "$work/log" >&2
    exit 1
fi
dir=$(dirname "$src")
sed -i "s/license=license,/license='Apache-2.0',/" "$dir/setup.py"
"$PYTHON" -m pip install --quiet "$dir"
"$PYTHON" -c "from fever.scorer import fever_score; print('fever-scorer installed')"
