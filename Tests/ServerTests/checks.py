"""The harness the client scripts (client_check.py, speech_check.py, ollama_check.py) share:
`@check(name)` runs a check at once and reports "ok NAME (T s)" or "FAIL NAME: reason", so every
failure is seen and the next check still runs; `finish()` prints the tally and exits 1 if any
check failed. Imported from the script's own folder (Python puts it on sys.path)."""
import sys
import time

failures = []
ran = []


def check(name):
    def run(fn):
        ran.append(name)
        started = time.monotonic()
        try:
            fn()
            print(f"ok {name} ({time.monotonic() - started:.1f} s)", flush=True)
        except Exception as e:  # every failure is reported, then the next check runs
            failures.append(name)
            print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
    return run


def finish(label=""):
    print(f"{label}{len(ran) - len(failures)} passed, {len(failures)} failed", flush=True)
    sys.exit(1 if failures else 0)
