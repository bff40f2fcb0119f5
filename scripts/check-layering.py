#!/usr/bin/env python3
"""Holds every target's imports to the layer graph in STYLE.md.

Reads the targets from `swift package dump-package`, then for each target checks that
(1) every project module its sources import is a declared dependency (SwiftPM does not catch
transitive imports), and (2) library targets depend only on lower layers, and (3) no test uses `@testable import` (the
test command builds in release, where it does not compile).
Exit status 1 lists every violation.
"""
import json, os, re, subprocess, sys

# Lower number = lower layer. Executables and tests sit above everything.
# Jinja (chat-template interpreter) is a leaf: no dependencies, and Tokenizers may import it.
RANK = {"Tensor": 0, "Jinja": 0, "CKernels": 0, "CJPEG": 0, "CPNG": 0, "CEspeakNG": 0, "CSndFile": 0, "CImageCodecs": 1, "Kernels": 1, "Formats": 1,
        "Tokenizers": 2, "Phonemes": 2, "Audio": 2, "Imaging": 2, "Models": 2, "ModelStore": 2,
        # The engine by concern: support (no dependencies), then JSON and grammars, tools, and text
        # generation and speech side by side.
        "EngineSupport": 0, "Platform": 0, "CLISupport": 0, "StructuredOutput": 3, "Tools": 3.2, "TextGeneration": 3.5, "Speech": 3.5, "Runtime": 4,
        "Retrieval": 4,
        # Photos sits between Runtime (whose configuration picks its backend) and OnDevice.
        "Photos": 4.5, "OnDevice": 5, "TestSupport": 5,
        "Server": 6,
        # Fuzz targets reach every parser, the server's included; CFuzz is libFuzzer's door.
        "CFuzz": 0, "Fuzzing": 7}
TOP = 10

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
pkg = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=root, check=True,
                                capture_output=True, text=True).stdout)
targets = {t["name"]: t for t in pkg["targets"]}
errors = []
for name, t in targets.items():
    deps = set()
    for d in t.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in d:
                deps.add(d[kind][0])
    rank = RANK.get(name, TOP if t["type"] in ("executable", "test") else None)
    if rank is None:
        errors.append(f"{name}: target has no layer in scripts/check-layering.py")
        continue
    for d in deps:
        if d in targets and RANK.get(d, TOP) >= rank and t["type"] not in ("executable", "test"):
            errors.append(f"{name} (layer {rank}) depends on {d} (layer {RANK.get(d)}): arrows must point down")
    folder = t.get("path") or os.path.join("Tests" if t["type"] == "test" else "Sources", name)
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        for f in files:
            if not f.endswith(".swift"):
                continue
            text = open(os.path.join(dirpath, f), encoding="utf-8").read()
            for m in re.finditer(r"^\s*(?:@testable\s+)?(?:package\s+|public\s+)?import\s+(\w+)", text, re.M):
                mod = m.group(1)
                if m.group(0).lstrip().startswith("@testable"):
                    # The test command builds in release, where @testable does not compile.
                    errors.append(f"{name}: {os.path.relpath(os.path.join(dirpath, f), root)} uses @testable import "
                                  f"{mod}; tests reach package API only")
                if mod in targets and mod != name and mod not in deps:
                    errors.append(f"{name}: {os.path.relpath(os.path.join(dirpath, f), root)} imports {mod}, "
                                  "which is not a declared dependency")
# (4) Doors reach the engine through the public API only; scripts/door-imports.txt lists the
# files not moved yet, and must match them exactly (so it only shrinks).
DOORS = {"ondevice": {"OnDevice", "Server", "Platform", "CLISupport"}, "Server": {"OnDevice", "StructuredOutput", "Platform"}}
listed = {}
for line in open(os.path.join(root, "scripts", "door-imports.txt"), encoding="utf-8"):
    line = line.strip()
    if line and not line.startswith("#"):
        path, mods = line.split(":", 1)
        listed[path.strip()] = set(mods.split())
seen = set()
for door, allowed in DOORS.items():
    folder = os.path.join(root, "Sources", door)
    for dirpath, _, files in os.walk(folder):
        for f in sorted(files):
            if not f.endswith(".swift"):
                continue
            full = os.path.join(dirpath, f)
            rel = os.path.relpath(full, root)
            text = open(full, encoding="utf-8").read()
            lower = {m for m in re.findall(r"^\s*import\s+(\w+)", text, re.M)
                     if m in targets and m not in allowed and targets[m]["type"] != "system-target" and m != "CKernels"}
            if lower:
                seen.add(rel)
                extra = lower - listed.get(rel, set())
                if extra:
                    errors.append(f"{rel} imports {', '.join(sorted(extra))} below the public API: doors go through "
                                  f"OnDevice (the list of files still being moved is scripts/door-imports.txt)")
                elif listed.get(rel, set()) - lower:
                    errors.append(f"scripts/door-imports.txt: {rel} no longer imports "
                                  f"{', '.join(sorted(listed[rel] - lower))}; drop it from the list")
for rel in sorted(set(listed) - seen):
    errors.append(f"scripts/door-imports.txt: {rel} imports only the public API now; drop its line")
if errors:
    print("layering violations:\n  " + "\n  ".join(sorted(set(errors))), file=sys.stderr)
    sys.exit(1)
print(f"layering: {len(targets)} targets follow the layer graph")
