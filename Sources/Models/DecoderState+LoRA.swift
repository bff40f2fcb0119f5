import CKernels
import Kernels
import Tensor

/// Scratch for the adapters' low-rank products of one batch, sized for the widest matrix.
final class LoRAScratch {
    let rank: Int
    let width: Int
    // (maxBatch, width): the input rounded as the adapter's dot products see it
    let input: UnsafeMutablePointer<Float>
    // (maxBatch, rank): A·x
    let mid: UnsafeMutablePointer<Float>
    // (maxBatch, width): B·(A·x)
    let delta: UnsafeMutablePointer<Float>

    init(rank: Int, width: Int, maxBatch: Int) {
        self.rank = rank
        self.width = width
        input = .allocate(capacity: maxBatch * width)
        mid = .allocate(capacity: maxBatch * rank)
        delta = .allocate(capacity: maxBatch * width)
    }

    deinit {
        input.deallocate()
        mid.deallocate()
        delta.deallocate()
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
            matmul.linear(p.a, input, s.mid, n: n)
            if p.b.type == .f16 { od_round_to_f16(s.mid, n * p.rank) }
            matmul.linear(p.b, s.mid, s.delta, n: n)
            VectorMath.addScaled(s.delta, multiplier, into: out, count: n * p.outputs)
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
