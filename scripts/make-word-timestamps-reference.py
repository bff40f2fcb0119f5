#!/usr/bin/env python3
"""Writes Tests/SpeechTests/word_timestamps_reference.json: faster-whisper's word timestamps
(word_timestamps=True, greedy, language en) for two golden clips with whisper tiny.en, the
reference the Swift alignment pass is compared to.

Run in a throwaway venv outside the repository:
    python3 -m venv /tmp/fw && /tmp/fw/bin/pip install faster-whisper==1.2.1
    /tmp/fw/bin/python scripts/make-word-timestamps-reference.py <faster-whisper-tiny.en dir>
"""
import json
import os
import sys

from faster_whisper import WhisperModel

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDEN = os.path.join(os.path.dirname(ROOT), "shared", "golden", "audio")
CLIPS = ["p01_piper_weather", "p03_espeak_fox"]

model = WhisperModel(sys.argv[1], device="cpu", compute_type="float32")
out = {}
for clip in CLIPS:
    segments, _ = model.transcribe(os.path.join(GOLDEN, clip + ".wav"), language="en", beam_size=1,
                                   temperature=0, word_timestamps=True)
    out[clip] = [{"start": s.start, "end": s.end, "text": s.text,
                  "words": [{"word": w.word, "start": w.start, "end": w.end, "probability": round(w.probability, 4)}
                            for w in s.words]} for s in segments]
path = os.path.join(ROOT, "Tests", "SpeechTests", "word_timestamps_reference.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
    f.write("\n")
print(json.dumps(out, indent=1))
