import CKernels
import Kernels
import Tensor

/// Scratch for the adapters' low-rank products of one batch, sized for the widest matrix.
final class LoRAScratch {
    let rank: Int
    let width: Int
    // (maxBatch, width): the input rounded as the adapter's dot products see it
    let input: UnsafeMutablePointer<Float>
    // (maxBatch, rank): A·x, then times the multiplier
    let mid: UnsafeMutablePointer<Float>

    init(rank: Int, width: Int, maxBatch: Int) {
        self.rank = rank
        self.width = width
        input = .allocate(capacity: maxBatch * width)
        mid = .allocate(capacity: maxBatch * rank)
    }

    deinit {
        input.deallocate()
        mid.deallocate()
    }
}

extension DecoderState {
    /// out = W·x for `matrix` of layer `layer`, plus every active adapter's
    /// multiplier · B·(A·x). With no adapter this is exactly the base product.
    ///
    /// `x` is (n, in) and `out` is (n, out), as for `MatMul.linear`.
    func linear(_ matrix: LayerMatrix, layer: Int, _ w: DecoderLayerWeights,
                _ x: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, n: Int) {
        matmul.linear(w[matrix: matrix], x, out, n: n)
        if !adapters.isEmpty { addAdapters([matrix], layer: layer, x, [out], n: n) }
    }

    /// `linear` for matrices that read the same input `x` (a group of `LayerMatrix.inputGroups`):
    /// the base products as one `MatMul` call, then the adapters, whose stacked A's of the group
    /// take one pass of x.
    func linear(_ matrices: [LayerMatrix], layer: Int, _ w: DecoderLayerWeights,
                _ x: UnsafePointer<Float>, _ outs: [UnsafeMutablePointer<Float>], n: Int) {
        matmul.linear(matrices.map { w[matrix: $0] }, x, outs, n: n)
        if !adapters.isEmpty { addAdapters(matrices, layer: layer, x, outs, n: n) }
    }

    /// outs[i] += every active adapter's multiplier · B·(A·x) for matrices[i] of layer `layer`.
    /// Packed pairs (F16 B, F16 or Q8_0 A) go through `LoRAPacking`; the others one by one.
    private func addAdapters(_ matrices: [LayerMatrix], layer: Int, _ x: UnsafePointer<Float>,
                             _ outs: [UnsafeMutablePointer<Float>], n: Int) {
        for applied in adapters {
            let adapter = applied.adapter
            if let packed = adapter.packed {
                let s = scratch(rank: packed.maxStackedRows)
                packed.add(matrices, layer: layer, x, outs, n: n, scale: applied.scale, alpha: adapter.alpha, mid: s.mid,
                           act: UnsafeMutableRawPointer(s.input), threads: matmul.threads)
            }
            if adapter.allPacked { continue }
            for (matrix, out) in zip(matrices, outs) where adapter.packed?.entry(layer: layer, matrix) == nil {
                guard let p = adapter.pair(layer: layer, matrix) else { continue }
                addUnpacked(p, multiplier: adapter.multiplier(scale: applied.scale, rank: p.rank), x, out, n: n)
            }
        }
    }

    /// out += multiplier · B·(A·x) for a pair the adapter did not pack (an F32 half, or a Q8_0 B).
    private func addUnpacked(_ p: LoRAAdapter.Pair, multiplier: Float, _ x: UnsafePointer<Float>,
                             _ out: UnsafeMutablePointer<Float>, n: Int) {
        if multiplier == 0 { return }
        let s = scratch(rank: p.rank)
        // llama.cpp's CPU path converts the f32 input of an F16 product to f16 first (F16's dot
        // type is F16); rounding here keeps our choices at near-ties where its are. A Q8_0 half's
        // input is quantized to Q8_0 by the matrix-vector kernels, as ggml's is.
        let input: UnsafePointer<Float>
        if p.a.type == .f16 {
            s.input.update(from: x, count: n * p.inputs)
            od_round_to_f16(s.input, n * p.inputs)
            input = UnsafePointer(s.input)
        } else {
            input = x
        }
        // Decoding, and any Q8_0 half: the matrix-vector kernels (or the integer GEMM), B's
        // output into `s.input`, free again after A·x. Prompt batches of float halves: the
        // F16/F32 GEMM (one weight row converted once for every token), the second product
        // accumulating straight into `out` with the multiplier folded into A·x first.
        let decoding = n < matmul.gemmFromRows
        if decoding || p.a.type == .q8_0 {
            matmul.linear(p.a, input, s.mid, n: n)
        } else {
            Gemm.multiply(input, rows: n, reduction: p.inputs, lda: p.inputs, b: Gemm.Operand(weight: p.a),
                          columns: p.rank, out: s.mid, ldc: p.rank, threads: matmul.threads)
        }
        if p.b.type == .f16 { od_round_to_f16(s.mid, n * p.rank) }
        if decoding || p.b.type == .q8_0 {
            matmul.linear(p.b, s.mid, s.input, n: n)
            VectorMath.addScaled(s.input, multiplier, into: out, count: n * p.outputs)
            return
        }
        VectorMath.scale(inPlace: s.mid, by: multiplier, count: n * p.rank)
        Gemm.multiply(s.mid, rows: n, reduction: p.rank, lda: p.rank, b: Gemm.Operand(weight: p.b),
                      columns: p.outputs, out: out, ldc: p.outputs, accumulate: true, threads: matmul.threads)
    }

    private func scratch(rank: Int) -> LoRAScratch {
        if let s = loraScratch, s.rank >= rank { return s }
        let c = config
        let width = max(c.embeddingLength, c.queryDim, c.kvDim, c.feedForwardLength)
        let s = LoRAScratch(rank: max(rank, loraScratch?.rank ?? 0), width: width, maxBatch: maxBatch)
        loraScratch = s
        return s
    }
}
