import CKernels
import Foundation
import Kernels
import Tensor

/// How RoPE pairs the dimensions of a head.
package enum RoPEStyle: Sendable {
    /// Adjacent pairs (x[2i], x[2i+1]): llama.cpp's "norm" rope, used by llama-family GGUFs
    /// (their converter permutes Q/K so this matches the original rotate-half).
    case interleaved
    /// Halves (x[i], x[i + headDim/2]): "neox" rope, used by Gemma.
    case halves
}

/// Gate activations of the feed-forward block.
package enum Activation: Sendable {
    /// x·sigmoid(x): SwiGLU (llama family).
    case silu
    /// tanh-approximated GELU: GeGLU (Gemma).
    case gelu
}

/// The building blocks the architecture files compose. Each works on `n` rows of the batch.
extension DecoderState {
    /// Copies the embeddings of `tokens` into `x`, times `scale`.
    func embed(_ tokens: UnsafeBufferPointer<Int32>, table: TensorView, scale: Float) {
        let d = config.embeddingLength
        for (t, id) in tokens.enumerated() {
            let row = x + t * d
            Dequantize.row(table.type, table.row(Int(id)), row, count: d)
            if scale != 1 { for i in 0..<d { row[i] *= scale } }
        }
    }

    /// out[r] = rmsnorm(src[r]) * weight for `rows` rows of width `width`.
    func rmsNorm(_ src: UnsafePointer<Float>, _ weight: TensorView, _ out: UnsafeMutablePointer<Float>, rows: Int, width: Int) {
        nonisolated(unsafe) let src = src, out = out, w = weight.floats
        let eps = config.rmsEpsilon
        split(rows, elementsEach: width, granule: 1) { range in
            for r in range { VectorMath.rmsNorm(src + r * width, weight: w, out: out + r * width, count: width, eps: eps) }
        }
        withExtendedLifetime(weight) {}
    }

    /// Runs `body` over 0..<count, split over the session's threads when the work is a prompt
    /// batch's (`minElementsPerSplit` or more elements, `elementsEach` per index), else in one
    /// call. Range bounds are multiples of `granule` (64 elements keep every vector kernel's tail
    /// where one call has it), so the outputs are the same bits either way. On one thread, or
    /// for a decoded token's few thousand elements, a split costs more than it saves.
    func split(_ count: Int, elementsEach: Int = 1, granule: Int = 64, _ body: @Sendable (Range<Int>) -> Void) {
        let threads = matmul.threads
        guard threads > 1, count * elementsEach >= minElementsPerSplit, count >= 2 * granule else { return body(0..<count) }
        ComputePool.run(threads: threads, parts: threads) { part in
            let lo = count * part / threads / granule * granule
            let hi = part == threads - 1 ? count : count * (part + 1) / threads / granule * granule
            if hi > lo { body(lo..<hi) }
        }
    }

    /// Rotates the query and key heads of batch row `t` (at sequence position `position`).
    /// `frequencyScale` multiplies every angle (linear RoPE scaling: 1 / factor) and
    /// `factors`, when given, divides angle i by factors[i] (Llama 3.x `rope_freqs.weight`,
    /// Phi-3's LongRoPE factors); `magnitude` multiplies cos and sin (LongRoPE's attention factor).
    func rope(row t: Int, position: Int, base: Float, style: RoPEStyle,
              frequencyScale: Float = 1, factors: TensorView? = nil, magnitude: Float = 1) {
        let c = config
        let half = c.headDim / 2
        // theta_i = scale * position * base^(-2i/headDim) / factor_i, the power accumulated in
        // Float as ggml does.
        let step = powf(base, -2 / Float(c.headDim))
        let f = factors?.floats
        var theta = Float(position)
        for i in 0..<half {
            let angle = frequencyScale * (f.map { theta / $0[i] } ?? theta)
            ropeCos[i] = cosf(angle) * magnitude
            ropeSin[i] = sinf(angle) * magnitude
            theta *= step
        }
        func rotate(_ head: UnsafeMutablePointer<Float>) {
            for i in 0..<half {
                let (a, b) = style == .interleaved ? (2 * i, 2 * i + 1) : (i, i + half)
                let x0 = head[a], x1 = head[b]
                head[a] = x0 * ropeCos[i] - x1 * ropeSin[i]
                head[b] = x0 * ropeSin[i] + x1 * ropeCos[i]
            }
        }
        for h in 0..<c.headCount { rotate(q + t * c.queryDim + h * c.headDim) }
        for h in 0..<c.kvHeadCount { rotate(k + t * c.kvDim + h * c.headDim) }
    }

    /// Stores each run's keys and values at its positions of `layer`, in its sequence's cache.
    func cacheKeysValues(layer: Int, rows: DecoderRows) {
        let kvDim = config.kvDim
        // The cache holds f16-precision values, as llama.cpp's f16 KV cache does.
        od_round_to_f16(k, rows.count * kvDim)
        od_round_to_f16(v, rows.count * kvDim)
        for run in rows.runs {
            run.state.keys(layer: layer, position: run.start).update(from: k + run.first * kvDim, count: run.count * kvDim)
            run.state.values(layer: layer, position: run.start).update(from: v + run.first * kvDim, count: run.count * kvDim)
        }
    }

    /// Causal attention of the pass's queries over the cache of `layer`, into `attnOut`. Each
    /// row attends over its own sequence's cache, up to its own position, limited to the last
    /// `window` positions when a sliding window is given.
    func attend(layer: Int, rows: DecoderRows, window: Int?) {
        let c = config
        let group = c.headCount / c.kvHeadCount
        nonisolated(unsafe) let q = self.q, out = attnOut, scores = self.scores
        let caches = rows.runs.map { run in
            precondition(run.state.contextLength <= contextLength, "a run's context exceeds the scratch's score rows")
            return RunCache(keys: run.state.keys(layer: layer, position: 0), values: run.state.values(layer: layer, position: 0),
                            first: run.first, count: run.count, start: run.start)
        }
        let ctx = contextLength
        let softcap = c.attentionSoftcap ?? 0
        let body: @Sendable (Int) -> Void = { h in
            let kvOffset = (h / group) * c.headDim
            for cache in caches {
                for i in 0..<cache.count {
                    let t = cache.first + i, pos = cache.start + i
                    let lo = window.map { max(0, pos - $0 + 1) } ?? 0
                    od_attend_head_capped(q + t * c.queryDim + h * c.headDim,
                                          cache.keys + lo * c.kvDim + kvOffset, cache.values + lo * c.kvDim + kvOffset,
                                          c.kvDim, pos - lo + 1, c.headDim, c.attentionScale, softcap,
                                          scores + h * ctx, out + t * c.queryDim + h * c.headDim)
                }
            }
        }
        let work = rows.runs.reduce(0) { $0 + $1.count * ($1.start + $1.count) }
        if threads > 1 && work > 64 {
            ComputePool.run(threads: threads, parts: c.headCount, body)
        } else {
            for h in 0..<c.headCount { body(h) }
        }
    }

    /// The query, key and value projections of `h` (n rows), plus their biases when the layer
    /// has them (Qwen 2), into q, k and v.
    func projectQueryKeyValue(layer l: Int, _ w: DecoderLayerWeights, _ h: UnsafePointer<Float>, n: Int) {
        linear([.query, .key, .value], layer: l, w, h, [q, k, v], n: n)
        if let bq = w.queryBias, let bk = w.keyBias, let bv = w.valueBias {
            addBias(q, bq, rows: n, width: config.queryDim)
            addBias(k, bk, rows: n, width: config.kvDim)
            addBias(v, bv, rows: n, width: config.kvDim)
        }
    }

    /// The end of an attention block once q and k are rotated: cache the keys and values,
    /// attend (over `window` positions when given), project, apply the post-norm when the layer
    /// has one (Gemma), and add to the residual stream x.
    func attentionOutput(layer l: Int, _ w: DecoderLayerWeights, rows: DecoderRows, window: Int?) {
        let d = config.embeddingLength, n = rows.count
        cacheKeysValues(layer: l, rows: rows)
        attend(layer: l, rows: rows, window: window)
        linear(.output, layer: l, w, attnOut, proj, n: n)
        if let post = w.postAttentionNorm { rmsNorm(proj, post, proj, rows: n, width: d) }
        addInPlace(x, proj, count: n * d)
    }

    /// The feed-forward block: x += post(Wdown · (act(Wgate·h) ⊙ Wup·h)), h = norm(x), the
    /// post-norm only when the layer has one (Gemma).
    func feedForward(layer l: Int, _ w: DecoderLayerWeights, n: Int, activation: Activation) {
        let d = config.embeddingLength
        rmsNorm(x, w.ffnNorm, xb, rows: n, width: d)
        linear([.gate, .up], layer: l, w, xb, [gate, up], n: n)
        gatedActivation(activation, count: n * config.feedForwardLength)
        linear(.down, layer: l, w, gate, proj, n: n)
        if let post = w.postFFNNorm { rmsNorm(proj, post, proj, rows: n, width: d) }
        addInPlace(x, proj, count: n * d)
    }

    /// QK-norm: per-head RMSNorm of the queries and keys, when the layer has it (Gemma 3, Qwen 3).
    func normalizeQueryKeyHeads(_ w: DecoderLayerWeights, n: Int) {
        guard let qn = w.queryNorm, let kn = w.keyNorm else { return }
        rmsNorm(q, qn, q, rows: n * config.headCount, width: config.headDim)
        rmsNorm(k, kn, k, rows: n * config.kvHeadCount, width: config.headDim)
    }

    /// out[r] += bias for `rows` rows of width `width` (a projection's learned bias).
    func addBias(_ out: UnsafeMutablePointer<Float>, _ bias: TensorView, rows: Int, width: Int) {
        for r in 0..<rows { VectorMath.add(out + r * width, bias.floats, out: out + r * width, count: width) }
    }

    /// x += y over `count` floats.
    func addInPlace(_ x: UnsafeMutablePointer<Float>, _ y: UnsafePointer<Float>, count: Int) {
        VectorMath.add(x, y, out: x, count: count)
    }

    /// gate = act(gate) ⊙ up over `count` floats: the gated feed-forward's middle.
    func gatedActivation(_ act: Activation, count: Int) {
        nonisolated(unsafe) let gate = self.gate, up = self.up
        split(count) { range in
            let g = gate + range.lowerBound
            switch act {
            case .silu: VectorMath.silu(g, out: g, count: range.count)
            case .gelu: VectorMath.geluLikeGGML(g, out: g, count: range.count)
            }
            VectorMath.mul(g, up + range.lowerBound, out: g, count: range.count)
        }
    }

    /// Final norm and output head: each run's last row into its sequence's `logits` (and, with
    /// one run, every row into `allLogits` when given), soft-capped when the model caps its
    /// logits (Gemma 2: cap · tanh(logit / cap)).
    func project(weights w: DecoderWeights, rows: DecoderRows, allLogits: UnsafeMutablePointer<Float>?) {
        let d = config.embeddingLength, vocab = config.vocabularySize, n = rows.count
        if let allLogits {
            precondition(rows.runs.count == 1, "every row's logits are for one sequence's pass")
            rmsNorm(x, w.outputNorm, xb, rows: n, width: d)
            var done = 0
            while done < n {
                let chunk = min(64, n - done)  // bounded work per call; output rows are large
                matmul.linear(w.output, xb + done * d, allLogits + done * vocab, n: chunk)
                done += chunk
            }
            if let cap = config.finalLogitSoftcap { VectorMath.softcap(allLogits, count: n * vocab, cap: cap) }
            rows.runs[0].state.logits.update(from: allLogits + (n - 1) * vocab, count: vocab)
        } else if rows.runs.count == 1 {
            let target = rows.runs[0].state.logits
            rmsNorm(x + (n - 1) * d, w.outputNorm, xb, rows: 1, width: d)
            matmul.linear(w.output, xb, target, n: 1)
            if let cap = config.finalLogitSoftcap { VectorMath.softcap(target, count: vocab, cap: cap) }
        } else {
            // Each sequence's last row, gathered, through one product: the output matrix (the
            // largest, with a big vocabulary) is read once for the whole step.
            let m = rows.runs.count
            for (i, run) in rows.runs.enumerated() {
                rmsNorm(x + (run.first + run.count - 1) * d, w.outputNorm, xb + i * d, rows: 1, width: d)
            }
            let out = rowLogits(m * vocab)
            var done = 0
            while done < m {
                let chunk = min(64, m - done)
                matmul.linear(w.output, xb + done * d, out + done * vocab, n: chunk)
                done += chunk
            }
            if let cap = config.finalLogitSoftcap { VectorMath.softcap(out, count: m * vocab, cap: cap) }
            for (i, run) in rows.runs.enumerated() { run.state.logits.update(from: out + i * vocab, count: vocab) }
        }
    }
}

/// One run's cache of a layer, for the attention workers.
private struct RunCache: @unchecked Sendable {
    // `@unchecked Sendable`: raw pointers into a cache only the pass writes, read by its workers.
    let keys: UnsafeMutablePointer<Float>
    let values: UnsafeMutablePointer<Float>
    let first: Int
    let count: Int
    let start: Int
}
