#!/usr/bin/env python3
"""piper-tts's real-time factor on the sentences `Benchmarks speak` times, for the comparison
issue #9 asks for: same voice files, same sentences, same thread count.

Usage: python3 scripts/bench-tts-reference.py VOICE.onnx [THREADS] [REPETITIONS] [SENTENCE...]
Installs piper-tts==1.8.0 on first use into $ONDEVICE_PYTHON_CACHE (default
~/.cache/ondevice/python/piper-tts) with pip's own configured index. RTF = synthesis seconds /
audio seconds (best of REPETITIONS per sentence, after a warm-up), voice-default scales.
"""
import os
import subprocess
import sys
import time

VERSION = "1.8.0"
SENTENCES = ["Hello from OnDevice.", "The weather today is sunny and warm, with a light breeze."]

cache = os.path.join(os.environ.get("ONDEVICE_PYTHON_CACHE", os.path.expanduser("~/.cache/ondevice/python")), "piper-tts")
sys.path.insert(0, cache)
try:
    import piper  # noqa: F401
    from importlib.metadata import version
    if version("piper-tts") != VERSION:
        raise ImportError
except ImportError:
    os.makedirs(cache, exist_ok=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--upgrade",
                    "--target", cache, f"piper-tts=={VERSION}"], check=True)
    import importlib
    importlib.invalidate_caches()

import onnxruntime
from piper import PiperVoice
from piper.config import SynthesisConfig

onnx = sys.argv[1]
threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1
repetitions = int(sys.argv[3]) if len(sys.argv) > 3 else 3
sentences = sys.argv[4:] or SENTENCES

voice = PiperVoice.load(onnx)
# PiperVoice.load makes its own session; rebuild it with the thread count under test.
options = onnxruntime.SessionOptions()
options.intra_op_num_threads = threads
options.inter_op_num_threads = 1
voice.session = onnxruntime.InferenceSession(onnx, sess_options=options, providers=["CPUExecutionProvider"])
config = SynthesisConfig()
rate = voice.config.sample_rate

total_audio = total_best = 0.0
print("| engine | sentence | audio s | threads | best s | CPU s | RTF |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for text in sentences:
    list(voice.synthesize(text, syn_config=config))  # warm up
    best, best_cpu, audio = float("inf"), 0.0, 0.0
    for _ in range(repetitions):
        start, cpu = time.perf_counter(), time.process_time()
        chunks = list(voice.synthesize(text, syn_config=config))
        wall, used = time.perf_counter() - start, time.process_time() - cpu
        if wall < best:
            best, best_cpu = wall, used
            audio = sum(len(c.audio_float_array) for c in chunks) / rate
    total_audio += audio
    total_best += best
    print(f"| piper-tts {VERSION} | {text} | {audio:.3f} | {threads} | {best:.3f} | {best_cpu:.3f} | {best / audio:.3f} |")
print(f"| piper-tts {VERSION} | all | {total_audio:.3f} | {threads} | {total_best:.3f} | | {total_best / total_audio:.3f} |")
print(f"onnxruntime {onnxruntime.__version__}")
