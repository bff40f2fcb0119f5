#!/usr/bin/env bash
# Installs the pinned Python packages the tests use as tools: gguf (gguf-py, which
# scripts/make-synthetic-ggufs.py writes the synthetic decoders with) and numpy, with pip's own
# configured index, into the environment of the python3 on PATH. Safe to run again: pinned versions already
# present are left alone.
set -euo pipefail
want=("gguf==0.19.0" "numpy==2.4.6")
if python3 - "${want[@]}" <<'PY'
import sys
from importlib.metadata import version, PackageNotFoundError
for spec in sys.argv[1:]:
    name, pinned = spec.split("==")
    try:
        if version(name) != pinned: sys.exit(1)
    except PackageNotFoundError:
        sys.exit(1)
PY
then exit 0; fi
python3 -m pip install --quiet --disable-pip-version-check "${want[@]}"
python3 -c "import gguf, numpy; print('setup: gguf', gguf.__version__ if hasattr(gguf, '__version__') else '', 'numpy', numpy.__version__)"
