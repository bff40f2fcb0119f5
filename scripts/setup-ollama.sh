#!/usr/bin/env bash
# Installs the official `ollama` Python package, the real client the server tests drive the
# Ollama-compatible endpoints of `ondevice serve` with, into $ONDEVICE_PYTHON_CACHE (default
# ~/.cache/ondevice/python, beside the openai client) using pip's own configured index. The tests
# put that directory on PYTHONPATH. Safe to run again.
set -euo pipefail
version="0.6.3"
dest="${ONDEVICE_PYTHON_CACHE:-$HOME/.cache/ondevice/python}"
installed() {
    PYTHONPATH="$dest" python3 -c "import importlib.metadata as m, sys; sys.exit(m.version('ollama') != '$version')" 2>/dev/null
}
if installed; then
    exit 0
fi
mkdir -p "$dest"
# --upgrade replaces shared dependencies (httpx, pydantic) in place, which the openai client uses
# too; both pins accept the same versions of them.
python3 -m pip install --quiet --disable-pip-version-check --upgrade --target "$dest" "ollama==$version"
installed || { echo "setup: ollama $version did not install into $dest" >&2; exit 1; }
echo "setup: ollama $version in $dest"
