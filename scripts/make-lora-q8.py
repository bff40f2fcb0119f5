#!/usr/bin/env python3
"""Writes the Q8_0 form of a GGUF LoRA adapter: what llama.cpp's convert_lora_to_gguf.py
--outtype q8_0 writes, made from the F16 adapter instead of the PEFT folder.

Usage: python3 scripts/make-lora-q8.py F16_ADAPTER OUT
Prints "<sha256>  <OUT's file name>".

The converter quantizes every `.lora_a` (rows `n_in` wide, whole 32-value blocks) to Q8_0 with
gguf-py's quantizer and falls back to F16 for a `.lora_b` whose rows (the rank) are not whole
blocks, as a rank-8 adapter's are; a `.lora_b` of rank 32, 64, ... becomes Q8_0 too. Here the
values come from the F16 file (each half read as float32, then quantized), the metadata is
copied key by key in file order, and the tensors keep their order. The same input gives the
same bytes. The reference continuations llama.cpp gives with the file are
Tests/IntegrationTests/Fixtures/lora-q8/greedy.json (README there).

Needs the `gguf` package (gguf-py) and numpy (scripts/setup-python-tools.sh).
"""
import hashlib
import os
import sys

import numpy as np
import gguf
from gguf import GGMLQuantizationType as Q


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[3])
    source, out = sys.argv[1], sys.argv[2]
    reader = gguf.GGUFReader(source)
    arch = reader.fields["general.architecture"].contents()
    writer = gguf.GGUFWriter(out + ".part", arch)
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name == "general.architecture":
            continue
        sub = field.types[-1] if field.types[0] == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, field.contents(), field.types[0], sub_type=sub)
    for t in reader.tensors:
        if t.tensor_type != Q.F16:
            sys.exit(f"make-lora-q8: {t.name} is {t.tensor_type.name}; expected an F16 adapter")
        values = np.asarray(t.data, dtype=np.float16).astype(np.float32)
        try:
            data, kind = gguf.quants.quantize(values, Q.Q8_0), Q.Q8_0
        except gguf.QuantError:
            data, kind = np.asarray(t.data, dtype=np.float16), Q.F16
        writer.add_tensor(t.name, data, raw_shape=values.shape if kind == Q.F16 else None, raw_dtype=kind)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(out + ".part", out)
    with open(out, "rb") as f:
        print(f"{hashlib.sha256(f.read()).hexdigest()}  {os.path.basename(out)}")


if __name__ == "__main__":
    main()
