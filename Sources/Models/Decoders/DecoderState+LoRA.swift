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
        addAdapters(matrix, layer: layer, x, out, n: n)
    }

    /// `linear` for matrices that read the same input `x` (a layer's query, key and value; its
    /// gate and up): the base products as one `MatMul` call, then each matrix's adapters.
    func linear(_ matrices: [LayerMatrix], layer: Int, _ w: DecoderLayerWeights,
                _ x: UnsafePointer<Float>, _ outs: [UnsafeMutablePointer<Float>], n: Int) {
        matmul.linear(matrices.map { w[matrix: $0] }, x, outs, n: n)
        for (matrix, out) in zip(matrices, outs) { addAdapters(matrix, layer: layer, x, out, n: n) }
    }

    /// out += every active adapter's multiplier · B·(A·x) for `matrix` of layer `layer`.
    private func addAdapters(_ matrix: LayerMatrix, layer: Int, _ x: UnsafePointer<Float>,
                             _ out: UnsafeMutablePointer<Float>, n: Int) {
        if adapters.isEmpty { return }
        for applied in adapters {
            guard let p = applied.adapter.pair(layer: layer, matrix) else { continue }
            let multiplier = applied.adapter.multiplier(scale: applied.scale, rank: p.rank)
            if multiplier == 0 { continue }
            let s = scratch(rank: p.rank)
            // llama.cpp's CPU path converts the f32 input of an F16 product to f16 first (F16's
            // dot type is F16); rounding here keeps our choices at near-ties where its are.
            let input: UnsafePointer<Float>
            if p.a.type == .f16 {
                s.input.update(from: x, count: n * p.inputs)
                od_round_to_f16(s.input, n * p.inputs)
                input = UnsafePointer(s.input)
            } else {
                input = x
            }
            if n < matmul.gemmFromRows {
                // Decoding: an F16 pair is one C call per token (`od_lora_apply_f16`): A·x
                // through the dot kernel, which streams the thin matrix once (a GEMM call packs
                // it first, which costs more than the product itself at one token), then B,
                // regrouped by eights, streamed once, adding multiplier · B·(A·x) into out as
                // llama.cpp scales B·(A·x). Other pairs take the matrix-vector kernels, B's output
                // into `s.input`, free again after A·x.
                if let blockedRows = p.blockedRows {
                    let a = p.a.data.assumingMemoryBound(to: UInt16.self), rows = p.b.data.assumingMemoryBound(to: UInt16.self)
                    blockedRows.withUnsafeBufferPointer { blocked in
                        for t in 0..<n {
                            od_lora_apply_f16(a, Int64(p.inputs), Int64(p.rank), blocked.baseAddress!, rows, Int64(p.outputs),
                                              input + t * p.inputs, s.mid + t * p.rank, multiplier, out + t * p.outputs)
                        }
                    }
                } else {
                    matmul.linear(p.a, input, s.mid, n: n)
                    if p.b.type == .f16 { od_round_to_f16(s.mid, n * p.rank) }
                    matmul.linear(p.b, s.mid, s.input, n: n)
                    VectorMath.addScaled(s.input, multiplier, into: out, count: n * p.outputs)
                }
                continue
            }
            // Prompt batches: rank-r products are too thin for the row-split matrix-vector path
            // to pay off. A·x and B·(A·x) go through the F16/F32 GEMM (one weight row converted
            // once for every token), and the second accumulates straight into `out` with the
            // multiplier folded into A·x first.
            Gemm.multiply(input, rows: n, reduction: p.inputs, lda: p.inputs, b: Gemm.Operand(weight: p.a),
                          columns: p.rank, out: s.mid, ldc: p.rank, threads: matmul.threads)
            if p.b.type == .f16 { od_round_to_f16(s.mid, n * p.rank) }
            VectorMath.scale(inPlace: s.mid, by: multiplier, count: n * p.rank)
            Gemm.multiply(s.mid, rows: n, reduction: p.rank, lda: p.rank, b: Gemm.Operand(weight: p.b),
                          columns: p.outputs, out: out, ldc: p.outputs, accumulate: true, threads: matmul.threads)
        }
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
