#!/usr/bin/env bash
# Installs the pinned Python packages the tests use as tools, with pip's own configured index,
# into the environment of the python3 on PATH: gguf (gguf-py, which scripts/make-synthetic-ggufs.py
# writes the synthetic decoders with) and numpy; jsonschema with the format checkers it only
# enables when their packages are present (rfc3339-validator: date-time and time;
# rfc3986-validator: uri; fqdn: hostname), which scripts/check-json-schema.py validates the
# structured-output corpus with; pydantic, which scripts/make-schema-corpus.py writes schemas with.
# Safe to run again: pinned versions already present are left alone.
set -euo pipefail
want=("gguf==0.19.0" "numpy==2.4.6" "jsonschema==4.26.0" "rfc3339-validator==0.1.4" "rfc3986-validator==0.1.1"
      "fqdn==1.6.0" "pydantic==2.13.4")
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
python3 -c "import gguf, numpy, jsonschema, pydantic; print('setup: gguf', gguf.__version__ if hasattr(gguf, '__version__') else '', 'numpy', numpy.__version__, 'pydantic', pydantic.VERSION)"
