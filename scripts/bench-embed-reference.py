#!/usr/bin/env python3
"""sentence-transformers' CPU throughput on the sentences that `Benchmarks embed
--write-sentences FILE` embedded, for the comparison the benchmark asks for.

Usage: python3 scripts/bench-embed-reference.py FILE MODEL_DIR [THREADS] [BATCH]
(needs sentence-transformers and torch in a virtual environment; nothing here installs them).
"""
import os
import sys
import time

import torch
from sentence_transformers import SentenceTransformer

path, model_dir = sys.argv[1], sys.argv[2]
threads = int(sys.argv[3]) if len(sys.argv) > 3 else os.cpu_count()
batch = int(sys.argv[4]) if len(sys.argv) > 4 else 32
torch.set_num_threads(threads)
sentences = [line for line in open(path, encoding="utf-8").read().split("\n") if line]
model = SentenceTransformer(model_dir, device="cpu")
model.encode(sentences[:batch], batch_size=batch)  # warm up
best = best_cpu = float("inf")
for _ in range(3):
    start, cpu = time.perf_counter(), time.process_time()  # process_time: CPU of all threads
    model.encode(sentences, batch_size=batch, normalize_embeddings=True)
    best = min(best, time.perf_counter() - start)
    best_cpu = min(best_cpu, time.process_time() - cpu)
print(f"sentence-transformers {model_dir}: {len(sentences)} sentences in {best:.2f} s: "
      f"{len(sentences) / best:.1f} sentences/s; {len(sentences) / best_cpu:.1f} sentences per CPU-second "
      f"(batch {batch}, {threads} threads, torch {torch.__version__})")
