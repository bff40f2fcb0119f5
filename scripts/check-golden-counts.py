#!/usr/bin/env python3
"""Fails unless every golden suite checked at least one golden record in a `swift test` log.

Usage: check-golden-counts.py LOG [SUITE ...]

Each golden suite counts the reference records it compared against (TestSupport's
`GoldenRecords`) and the test process prints, when it exits, one line per suite:

    golden: <Suite> checked <N> records

A suite that skipped, filtered its records away or read an empty file prints 0 or nothing, and
this script names it and exits 1. It also exits 1 when the log has no passing swift-testing run,
so the check holds even where the shell does not propagate the test command's status through a
pipe. With SUITE names (a filtered run, `swift test --filter`), only those are required. A suite
that counts records but is missing from GOLDEN_SUITES below is an error too, so the list stays whole.
"""
import re
import sys

# Every suite that compares against ../shared/golden (or, for SyntheticArchitectureTests, the
# llama.cpp references in Tests/IntegrationTests/Fixtures/synthetic). A new golden suite is added here.
GOLDEN_SUITES = [
    # TokenizersTests
    "GoldenTokenizerTests", "ChatTemplateTests",
    # SpeechTests
    "WhisperGoldenTests", "WhisperTokenizerTests", "MelSpectrogramTests", "WAVFileTests",
    "SileroVADTests", "PiperGoldenTests", "PiperPhonemizerTests", "SpeechSynthesizerTests",
    # RetrievalTests
    "GoldenEmbeddingTests", "GoldenRetrievalTests",
    # IntegrationTests
    "LLMGoldenTests", "BatchingGoldenTests", "LoRAGoldenTests", "SyntheticArchitectureTests", "SpeechEmbeddingOpsTests", "CLITests",
    # VisionTests, PhotosTests, ImagingTests
    "EfficientNetGoldenTests", "ONNXGraphGoldenTests", "TextReaderGoldenTests", "CullingGoldenTests", "NeuralBackendTests", "DecoderGoldenTests",
    "TFLiteGraphTests", "FaceDetectionGoldenTests", "FaceMeshGoldenTests", "SelfieSegmentationGoldenTests",
]

LINE = re.compile(r"^golden: (\S+) checked (\d+) records$")
# swift-testing's last line: "✔ Test run with 1234 tests in 210 suites passed after 300.1 seconds."
PASSED = re.compile(r"Test run with \d+ tests? in \d+ suites? passed after")
FAILED = re.compile(r"Test run with \d+ tests? in \d+ suites? failed after")


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        log = f.read().splitlines()
    expected = argv[2:] or GOLDEN_SUITES

    counts = {}
    for line in log:
        m = LINE.match(line.strip())
        if m:
            counts[m.group(1)] = counts.get(m.group(1), 0) + int(m.group(2))

    problems = []
    if any(FAILED.search(line) for line in log) or not any(PASSED.search(line) for line in log):
        problems.append("the log has no passing swift-testing run")
    missing = [s for s in expected if s not in counts]
    zero = [s for s in expected if counts.get(s) == 0]
    if missing:
        problems.append("no golden count printed by: " + ", ".join(missing))
    if zero:
        problems.append("zero golden records checked by: " + ", ".join(zero))
    unlisted = sorted(set(counts) - set(GOLDEN_SUITES))
    if unlisted:
        problems.append("counted but not in GOLDEN_SUITES (add them to this script): " + ", ".join(unlisted))

    for suite in expected:
        if suite in counts:
            print(f"check-golden-counts: {suite} {counts[suite]}")
    if problems:
        for p in problems:
            print(f"check-golden-counts: FAIL {p}", file=sys.stderr)
        return 1
    print(f"check-golden-counts: {len(expected)} golden suites, {sum(counts[s] for s in expected)} records checked")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
