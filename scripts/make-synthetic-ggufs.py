#!/usr/bin/env python3
"""Writes small synthetic GGUF decoders for checking new architectures against llama.cpp.

Usage: python3 scripts/make-synthetic-ggufs.py OUTDIR [--vocab SMOLLM2_GGUF] [--only NAME ...]
Prints "<sha256>  <name>.gguf" for each file written.

Each file has random weights (numpy's PCG64, seeded per model: the same bytes on every run)
in the tensor layout and metadata key names that llama.cpp's convert_hf_to_gguf.py writes for
that architecture, and the real SmolLM2 vocabulary (gpt2 BPE, pre-tokenizer "smollm") copied
from a SmolLM2 GGUF, so any engine tokenizes text the same way. The reference logits that
llama.cpp computes from these files are Tests/IntegrationTests/Fixtures/synthetic/*.json; the
README there says which metadata each model sets and what an engine must implement to match.

Needs the `gguf` package (gguf-py) and numpy; nothing else, and no llama.cpp. Tensor types
are those gguf-py quantizes itself (F32, F16, Q8_0, Q4_0, Q5_0) plus Q4_K, which gguf-py can
dequantize but not quantize: `quantize_q4_k` below packs its blocks in numpy.
"""
import argparse
import hashlib
import math
import os
import sys

import numpy as np
import gguf
from gguf import GGMLQuantizationType as Q

VOCAB_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"


def find_vocab():
    """The SmolLM2 GGUF, searched like TestSupport's TestModels: $ONDEVICE_TEST_MODELS, then the
    model store ($ONDEVICE_HOME, else $XDG_DATA_HOME/ondevice/models, else
    ~/.local/share/ondevice/models), by file name, recursively."""
    env = os.environ
    roots = [env["ONDEVICE_TEST_MODELS"]] if env.get("ONDEVICE_TEST_MODELS") else []
    if env.get("ONDEVICE_HOME"):
        roots.append(env["ONDEVICE_HOME"])
    else:
        data = env.get("XDG_DATA_HOME") or os.path.expanduser("~/.local/share")
        roots.append(os.path.join(data, "ondevice", "models"))
    for root in roots:
        for directory, subdirs, files in os.walk(root):
            subdirs.sort()
            if VOCAB_FILE in files:
                return os.path.join(directory, VOCAB_FILE)
    return None


# --- Q4_K ------------------------------------------------------------------------------------
# block_q4_K (ggml-common.h), 144 bytes per 256 weights:
#   d: f16, dmin: f16, scales[12]: eight 6-bit (scale, min) pairs, qs[128]: 4-bit quants.
#   weight = d * sc[j] * q - dmin * m[j] for sub-block j (32 weights).
#   scales bytes 0..3: sc[0..3] | (sc[4..7] >> 4) << 6; bytes 4..7: m[0..3] | (m[4..7] >> 4) << 6;
#   bytes 8..11: (sc[4..7] & 15) | (m[4..7] & 15) << 4.
#   qs: four 32-byte groups; group g holds sub-block 2g in its low nibbles, 2g+1 in its high.
def quantize_q4_k(x: np.ndarray) -> np.ndarray:
    """A plain (not error-minimising) Q4_K quantizer; returns the (rows, cols/256*144) bytes."""
    rows, cols = x.shape
    assert cols % 256 == 0, "Q4_K rows are whole 256-weight super-blocks"
    b = x.astype(np.float32).reshape(-1, 8, 32)                 # (blocks, sub-block, weight)
    lo = np.minimum(b.min(axis=2), 0.0)                         # sub-block minimum (<= 0)
    hi = b.max(axis=2)
    scale = (hi - lo) / 15.0                                    # per-sub-block step
    d = (scale.max(axis=1) / 63.0).astype(np.float16)           # super-block scale of the steps
    dmin = ((-lo).max(axis=1) / 63.0).astype(np.float16)        # super-block scale of the minima
    df, dminf = d.astype(np.float32), dmin.astype(np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        sc = np.where(df[:, None] > 0, np.rint(scale / df[:, None]), 0).clip(0, 63).astype(np.uint8)
        m = np.where(dminf[:, None] > 0, np.rint(-lo / dminf[:, None]), 0).clip(0, 63).astype(np.uint8)
        step = df[:, None] * sc.astype(np.float32)
        off = dminf[:, None] * m.astype(np.float32)
        q = np.where(step[:, :, None] > 0, np.rint((b + off[:, :, None]) / step[:, :, None]), 0)
    q = q.clip(0, 15).astype(np.uint8)                          # (blocks, 8, 32)
    scales = np.empty((b.shape[0], 12), dtype=np.uint8)
    scales[:, 0:4] = (sc[:, 0:4] & 63) | ((sc[:, 4:8] >> 4) << 6)
    scales[:, 4:8] = (m[:, 0:4] & 63) | ((m[:, 4:8] >> 4) << 6)
    scales[:, 8:12] = (sc[:, 4:8] & 15) | ((m[:, 4:8] & 15) << 4)
    qs = (q[:, 0::2, :] | (q[:, 1::2, :] << 4)).reshape(-1, 128)
    blocks = np.concatenate([d.view(np.uint8).reshape(-1, 2), dmin.view(np.uint8).reshape(-1, 2),
                             scales, qs], axis=1)
    out = blocks.reshape(rows, cols // 256 * 144)
    # The packing is checked on every run: gguf-py's own Q4_K dequantizer must read back
    # exactly d*sc*q - dmin*m from these bytes.
    want = (step[:, :, None] * q - off[:, :, None]).reshape(rows, cols)
    if not np.allclose(gguf.quants.dequantize(out, Q.Q4_K), want, rtol=1e-6, atol=1e-7):
        raise AssertionError("Q4_K packing disagrees with gguf-py's dequantizer")
    return out


def encode(x: np.ndarray, qtype: Q):
    """The array gguf-py writes for `x` (float32, numpy shape (out, in)) as `qtype`."""
    if qtype == Q.F32:
        return x.astype(np.float32), None
    if qtype == Q.F16:
        return x.astype(np.float16), None
    if qtype == Q.Q4_K:
        return quantize_q4_k(x), Q.Q4_K
    return gguf.quants.quantize(x.astype(np.float32), qtype), qtype


# --- vocabulary ------------------------------------------------------------------------------
def read_vocab(path: str) -> list:
    """The tokenizer.* fields of a GGUF, in file order, as (key, type, value, array item type)."""
    r = gguf.GGUFReader(path)
    out = []
    for key, field in r.fields.items():
        if not key.startswith("tokenizer."):
            continue
        t = field.types[0]
        if t == gguf.GGUFValueType.ARRAY:
            sub = field.types[1]
            if sub == gguf.GGUFValueType.STRING:
                value = [bytes(field.parts[i]) for i in field.data]     # raw bytes, not re-encoded
            else:
                value = [field.parts[i].tolist()[0] for i in field.data]
            out.append((key, t, value, sub))
        elif t == gguf.GGUFValueType.STRING:
            out.append((key, t, bytes(field.parts[field.data[0]]), None))
        else:
            out.append((key, t, field.parts[field.data[0]].tolist()[0], None))
    return out


def write_vocab(w: gguf.GGUFWriter, vocab: list):
    for key, t, value, sub in vocab:
        w.add_key_value(key, value, t, sub_type=sub)


# --- models ----------------------------------------------------------------------------------
class Builder:
    """Collects tensors for one file; random weights come from one seeded generator in a fixed
    call order, so the bytes depend only on the spec below."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.tensors = []   # (name, array, raw_dtype)

    def normal(self, shape, std):
        return (self.rng.standard_normal(shape, dtype=np.float32) * np.float32(std)).astype(np.float32)

    def matrix(self, name, out_dim, in_dim, qtype, std=None, x=None):
        """A weight of GGUF shape [in_dim, out_dim] (numpy (out_dim, in_dim)); std defaults to
        1/sqrt(in_dim) so a unit-RMS input gives a unit-RMS output."""
        if x is None:
            x = self.normal((out_dim, in_dim), std if std is not None else 1 / math.sqrt(in_dim))
        data, raw = encode(x, qtype)
        self.tensors.append((name, data, raw))

    def vector(self, name, values):
        self.tensors.append((name, np.asarray(values, dtype=np.float32), None))

    def norm(self, name, n, spread=0.1):
        self.vector(name, 1 + self.normal((n,), spread))


def llama3_rope_freqs(base, dim, factor=8.0, low=1.0, high=4.0, old_ctx=8192):
    """convert_hf_to_gguf.py's llama3 rope factors (LlamaModel.generate_extra_tensors). There
    `freq` is a float32 torch scalar, so every expression with it is float32 arithmetic; the
    numpy float32 scalars below do the same."""
    f32 = np.float32
    freqs = f32(1.0) / (f32(base) ** (np.arange(0, dim, 2, dtype=np.float32) / f32(dim)))
    low_wl, high_wl = old_ctx / low, old_ctx / high
    out = []
    for freq in freqs:
        wl = f32(2 * math.pi) / freq
        if wl < high_wl:
            out.append(f32(1))
        elif wl > low_wl:
            out.append(f32(factor))
        else:
            smooth = (f32(old_ctx) / wl - f32(low)) / f32(high - low)
            out.append(f32(1) / ((f32(1) - smooth) / f32(factor) + smooth))
    return np.array(out, dtype=np.float32)


def common_header(w, name, ctx, d, n_layer, n_ff, n_head, n_kv):
    """The keys TextModel.set_gguf_parameters writes, in its order."""
    w.add_type("model")
    w.add_name(name)
    w.add_block_count(n_layer)
    w.add_context_length(ctx)
    w.add_embedding_length(d)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_kv)


def decoder_layers(b, n_layer, d, q_dim, kv_dim, n_ff, types, *, qk_norm_dim=None, biases=False,
                   branch_gain=1.0, qk_boost=None):
    """Separate q/k/v/o and gate/up/down per layer. `types[i]` maps role -> quant type for
    layer i; `branch_gain` scales the attention-output and down projections (a tied model needs
    its blocks to outweigh the token's own embedding, or it predicts its input); `qk_boost`
    (one weight per rotary pair of a head) scales query/key rows of chosen rotary pairs so a
    change of their rotation shows in the logits."""
    for i in range(n_layer):
        t = types[i % len(types)]
        p = f"blk.{i}."
        b.norm(p + "attn_norm.weight", d)
        wq = b.normal((q_dim, d), 1 / math.sqrt(d))
        wk = b.normal((kv_dim, d), 1 / math.sqrt(d))
        if qk_boost is not None:
            wq *= np.tile(np.repeat(qk_boost, 2), q_dim // (2 * len(qk_boost)))[:, None]
            wk *= np.tile(np.repeat(qk_boost, 2), kv_dim // (2 * len(qk_boost)))[:, None]
        b.matrix(p + "attn_q.weight", q_dim, d, t["q"], x=wq)
        b.matrix(p + "attn_k.weight", kv_dim, d, t["k"], x=wk)
        b.matrix(p + "attn_v.weight", kv_dim, d, t["v"])
        if biases:
            b.vector(p + "attn_q.bias", b.normal((q_dim,), 0.5))
            b.vector(p + "attn_k.bias", b.normal((kv_dim,), 0.5))
            b.vector(p + "attn_v.bias", b.normal((kv_dim,), 0.5))
        if qk_norm_dim:
            b.norm(p + "attn_q_norm.weight", qk_norm_dim, 0.3)
            b.norm(p + "attn_k_norm.weight", qk_norm_dim, 0.3)
        b.matrix(p + "attn_output.weight", d, q_dim, t["o"], std=branch_gain / math.sqrt(q_dim))
        b.norm(p + "ffn_norm.weight", d)
        b.matrix(p + "ffn_gate.weight", n_ff, d, t["gate"])
        b.matrix(p + "ffn_up.weight", n_ff, d, t["up"])
        b.matrix(p + "ffn_down.weight", d, n_ff, t["down"], std=branch_gain / math.sqrt(n_ff))


MIXED = [  # per-layer weight types, cycled over the layers
    {"q": Q.F16, "k": Q.Q8_0, "v": Q.F32, "o": Q.Q8_0, "gate": Q.F16, "up": Q.Q8_0, "down": Q.Q4_K},
    {"q": Q.Q8_0, "k": Q.F16, "v": Q.Q4_0, "o": Q.F16, "gate": Q.Q5_0, "up": Q.F16, "down": Q.Q8_0},
    {"q": Q.Q4_0, "k": Q.F32, "v": Q.Q8_0, "o": Q.Q5_0, "gate": Q.Q8_0, "up": Q.Q4_0, "down": Q.Q4_K},
]

VOCAB_SIZE = 49152


def make_qwen3(w, b):
    d, n_layer, n_head, n_kv, head_dim, n_ff = 64, 3, 4, 2, 32, 256
    common_header(w, "synthetic-qwen3", 40960, d, n_layer, n_ff, n_head, n_kv)
    w.add_rope_freq_base(1_000_000.0)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_key_length(head_dim)
    w.add_value_length(head_dim)
    b.matrix("token_embd.weight", VOCAB_SIZE, d, Q.Q8_0, std=1.0)
    decoder_layers(b, n_layer, d, n_head * head_dim, n_kv * head_dim, n_ff, MIXED, qk_norm_dim=head_dim)
    b.norm("output_norm.weight", d)
    b.matrix("output.weight", VOCAB_SIZE, d, Q.F16, std=0.5)
    return Q.Q8_0


def make_qwen2(w, b):
    d, n_layer, n_head, n_kv, n_ff = 64, 2, 4, 2, 256
    common_header(w, "synthetic-qwen2", 32768, d, n_layer, n_ff, n_head, n_kv)
    w.add_rope_freq_base(1_000_000.0)
    w.add_layer_norm_rms_eps(1e-6)
    b.matrix("token_embd.weight", VOCAB_SIZE, d, Q.F16, std=0.6)      # tied: no output.weight
    decoder_layers(b, n_layer, d, d, n_kv * (d // n_head), n_ff, MIXED[1:] + MIXED[:1], biases=True,
                   branch_gain=8.0)
    b.norm("output_norm.weight", d)
    return Q.F16


def make_llama(w, b, *, variant):
    d, n_layer, n_head, n_kv, n_ff = 64, 2, 4, 2, 256
    head_dim = d // n_head
    name = {"rope-freqs": "synthetic-llama3-rope-freqs", "rope-linear": "synthetic-llama-rope-linear"}[variant]
    common_header(w, name, 131072 if variant == "rope-freqs" else 16384,
                  d, n_layer, n_ff, n_head, n_kv)
    base = 500_000.0 if variant == "rope-freqs" else 10_000.0
    w.add_rope_freq_base(base)
    w.add_layer_norm_rms_eps(1e-5)
    if variant == "rope-linear":
        w.add_rope_scaling_type(gguf.RopeScalingType.LINEAR)
        w.add_rope_scaling_factor(4.0)
    w.add_vocab_size(VOCAB_SIZE)
    w.add_rope_dimension_count(head_dim)
    b.matrix("token_embd.weight", VOCAB_SIZE, d, Q.Q8_0, std=1.0)
    boost = None
    if variant == "rope-freqs":
        freqs = llama3_rope_freqs(base, head_dim)
        b.vector("rope_freqs.weight", freqs)
        # Pairs the factors touch rotate slowly (wavelength > 2048 tokens); larger query/key
        # weights there make their rotation change over the prompt show in the logits.
        boost = np.where(freqs > 1, 5.0, 1.0).astype(np.float32)
    decoder_layers(b, n_layer, d, d, n_kv * head_dim, n_ff, MIXED[2:] + MIXED[:2], qk_boost=boost)
    b.norm("output_norm.weight", d)
    b.matrix("output.weight", VOCAB_SIZE, d, Q.Q8_0, std=0.5)
    return Q.Q8_0


def make_phi3(w, b, *, longrope):
    d, n_layer, n_head, n_kv, n_ff = 128, 2, 4, 2, 256
    head_dim = d // n_head
    kv_dim = n_kv * head_dim
    ctx, orig_ctx = (131072, 4096) if longrope else (4096, 4096)
    w.add_type("model")
    # Not "phi3"/"phi-3": llama.cpp's vocabulary loader keys token attributes on those names and
    # fails on a vocabulary without "</s>".
    w.add_name("synthetic phi 3 longrope" if longrope else "synthetic phi 3")
    # Phi3MiniModel.set_gguf_parameters (it does not call the base class's)
    w.add_context_length(ctx)
    w.add_rope_scaling_orig_ctx_len(orig_ctx)
    w.add_embedding_length(d)
    w.add_feed_forward_length(n_ff)
    w.add_block_count(n_layer)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_kv)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_dimension_count(head_dim)
    w.add_rope_freq_base(10_000.0)
    w.add_sliding_window(0)
    b.matrix("token_embd.weight", VOCAB_SIZE, d, Q.F16, std=1.0)
    if longrope:
        scale = ctx / orig_ctx
        w.add_rope_scaling_attn_factors(math.sqrt(1 + math.log(scale) / math.log(orig_ctx)))
        i = np.arange(head_dim // 2, dtype=np.float32)
        b.vector("rope_factors_long.weight", 1 + 39 * (i / (head_dim // 2 - 1)) ** 2)
        b.vector("rope_factors_short.weight", 1 + 2 * (i / (head_dim // 2 - 1)))
    types = [{"qkv": Q.Q8_0, "o": Q.F16, "up": Q.Q5_0, "down": Q.Q4_K},
             {"qkv": Q.F16, "o": Q.Q4_0, "up": Q.Q8_0, "down": Q.F32}]
    for li in range(n_layer):
        t, p = types[li % len(types)], f"blk.{li}."
        b.norm(p + "attn_norm.weight", d)
        # HF Phi3 qkv_proj rows: q (n_head*head_dim), then k, then v (kv_dim each).
        b.matrix(p + "attn_qkv.weight", d + 2 * kv_dim, d, t["qkv"])
        b.matrix(p + "attn_output.weight", d, d, t["o"])
        b.norm(p + "ffn_norm.weight", d)
        # HF Phi3 gate_up_proj rows: gate (n_ff), then up (n_ff).
        b.matrix(p + "ffn_up.weight", 2 * n_ff, d, t["up"])
        b.matrix(p + "ffn_down.weight", d, n_ff, t["down"])
    b.norm("output_norm.weight", d)
    b.matrix("output.weight", VOCAB_SIZE, d, Q.Q8_0, std=0.35)
    return Q.F16


def make_gemma2(w, b):
    d, n_layer, n_head, n_kv, head_dim, n_ff = 64, 3, 4, 2, 32, 256
    common_header(w, "synthetic-gemma2", 8192, d, n_layer, n_ff, n_head, n_kv)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_key_length(head_dim)
    w.add_value_length(head_dim)
    w.add_attn_logit_softcapping(5.0)
    w.add_final_logit_softcapping(30.0)
    w.add_sliding_window(8)
    # Tied output (gemma2 never reads an output.weight): a row RMS of 5.6/sqrt(d) gives pre-cap logits of RMS ~5.6, whose top values
    # (~23) the final cap of 30 (Gemma 2's own) bends by ~4.
    b.matrix("token_embd.weight", VOCAB_SIZE, d, Q.Q8_0, std=5.6 / math.sqrt(d))
    for i in range(n_layer):
        t, p = MIXED[i % len(MIXED)], f"blk.{i}."
        b.norm(p + "attn_norm.weight", d)
        # Queries and keys twice unit size: q.k/sqrt(head_dim) has an RMS of ~4, often past the cap.
        b.matrix(p + "attn_q.weight", n_head * head_dim, d, t["q"], std=2 / math.sqrt(d))
        b.matrix(p + "attn_k.weight", n_kv * head_dim, d, t["k"], std=2 / math.sqrt(d))
        b.matrix(p + "attn_v.weight", n_kv * head_dim, d, t["v"])
        b.matrix(p + "attn_output.weight", d, n_head * head_dim, t["o"])
        # Gemma's post-norm weights are large in trained models; here ~20, so that the blocks
        # outweigh the (sqrt(d)-scaled) embedding they start from.
        b.vector(p + "post_attention_norm.weight", 20 + b.normal((d,), 2.0))
        b.norm(p + "ffn_norm.weight", d)
        b.matrix(p + "ffn_gate.weight", n_ff, d, t["gate"])
        b.matrix(p + "ffn_up.weight", n_ff, d, t["up"])
        b.matrix(p + "ffn_down.weight", d, n_ff, t["down"])
        b.vector(p + "post_ffw_norm.weight", 20 + b.normal((d,), 2.0))
    b.norm("output_norm.weight", d)
    return Q.Q8_0


MODELS = {
    # name: (architecture, seed, builder)
    "qwen3": ("qwen3", 3003, make_qwen3),
    "qwen2": ("qwen2", 2002, make_qwen2),
    "phi3": ("phi3", 3303, lambda w, b: make_phi3(w, b, longrope=False)),
    "phi3-longrope": ("phi3", 3304, lambda w, b: make_phi3(w, b, longrope=True)),
    "gemma2": ("gemma2", 2222, make_gemma2),
    "llama3-rope-freqs": ("llama", 3131, lambda w, b: make_llama(w, b, variant="rope-freqs")),
    "llama-rope-linear": ("llama", 1414, lambda w, b: make_llama(w, b, variant="rope-linear")),
}

FILE_TYPES = {Q.F32: gguf.LlamaFileType.ALL_F32, Q.F16: gguf.LlamaFileType.MOSTLY_F16,
              Q.Q8_0: gguf.LlamaFileType.MOSTLY_Q8_0}


def write_model(name: str, out_dir: str, vocab: list) -> str:
    arch, seed, build = MODELS[name]
    path = os.path.join(out_dir, f"{name}.gguf")
    w = gguf.GGUFWriter(path, arch)
    b = Builder(seed)
    ftype = build(w, b)
    w.add_file_type(FILE_TYPES[ftype])
    w.add_quantization_version(gguf.GGML_QUANT_VERSION)
    write_vocab(w, vocab)
    for tname, data, raw in b.tensors:
        w.add_tensor(tname, data, raw_dtype=raw)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--vocab", help=f"GGUF to copy tokenizer.* from (default: {VOCAB_FILE} in the model store)")
    ap.add_argument("--only", nargs="*", choices=sorted(MODELS), help="write only these models")
    args = ap.parse_args()
    args.vocab = args.vocab or find_vocab()
    if not args.vocab or not os.path.isfile(args.vocab):
        sys.exit(f"no {VOCAB_FILE} found (install the pinned models, or pass --vocab PATH)")
    vocab = read_vocab(args.vocab)
    tokens = next(v for k, _, v, _ in vocab if k == "tokenizer.ggml.tokens")
    if len(tokens) != VOCAB_SIZE:
        sys.exit(f"{args.vocab}: {len(tokens)} tokens, expected SmolLM2's {VOCAB_SIZE}")
    os.makedirs(args.outdir, exist_ok=True)
    for name in args.only or MODELS:
        print(f"{write_model(name, args.outdir, vocab)}  {name}.gguf", flush=True)


if __name__ == "__main__":
    main()
