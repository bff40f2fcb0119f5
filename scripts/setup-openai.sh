#!/usr/bin/env bash
# Installs the official `openai` Python package, the real client the server tests drive
# `ondevice serve` with, and `prometheus-client`, whose text parser reads `/metrics` in them, into $ONDEVICE_PYTHON_CACHE (default ~/.cache/ondevice/python) using
# pip's own configured index. The tests put that directory on PYTHONPATH. Safe to run again.
set -euo pipefail
version="3.57.0"
prometheus="0.26.0"
dest="${ONDEVICE_PYTHON_CACHE:-$HOME/.cache/ondevice/python}"
if PYTHONPATH="$dest" python3 -c "import openai, prometheus_client, sys; sys.exit(openai.__version__ != '$version')" 2>/dev/null; then
    exit 0
fi
mkdir -p "$dest"
python3 -m pip install --quiet --disable-pip-version-check --upgrade --target "$dest" "openai==$version" "prometheus-client==$prometheus"
PYTHONPATH="$dest" python3 -c "import openai, prometheus_client; print('setup: openai', openai.__version__, 'and prometheus-client in $dest')"
