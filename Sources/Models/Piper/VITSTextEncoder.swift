import Foundation
import Kernels

/// VITS's prior text encoder (Kim et al. 2021, "Conditional Variational Autoencoder with
/// Adversarial Learning for End-to-End Text-to-Speech", `TextEncoder` in jaywalnut310/vits):
/// phoneme embeddings × √hidden, then post-norm transformer layers whose self-attention adds
/// relative-position key and value embeddings for offsets within ±window, and a kernel-3 conv FFN;
/// a 1×1 projection gives the prior's means and log-scales.
struct VITSTextEncoder: Sendable {
    struct Layer: Sendable {
        let query, key, value, output: ConvLayer
        let relativeKeys: [Float]    // (2·window + 1, headDim), offset j − i + window
        let relativeValues: [Float]  // (2·window + 1, headDim)
        let norm1Gamma, norm1Beta, norm2Gamma, norm2Beta: [Float]
        let ffnIn, ffnOut: ConvLayer
    }

    let embedding: [Float]  // (vocabulary, hidden)
    let vocabularySize: Int
    let hidden: Int
    let heads: Int
    let window: Int
    let layers: [Layer]
    let projection: ConvLayer  // hidden → 2·hidden (means, log-scales)

    init(_ source: VITSWeightSource) throws(ModelError) {
        let embeddingName = try source.embeddingName()
        let dims = source.model.initializers[embeddingName]?.dims ?? []
        guard dims.count == 2 else { throw .shapeMismatch(tensor: embeddingName, expected: [-1, -1], found: dims) }
        embedding = try source.floats(embeddingName, shape: dims)
        vocabularySize = dims[0]
        hidden = dims[1]
        var layers: [Layer] = []
        while source.model.initializers["enc_p.encoder.attn_layers.\(layers.count).emb_rel_k"] != nil {
            let a = "enc_p.encoder.attn_layers.\(layers.count)", i = layers.count
            let rel = source.model.initializers[a + ".emb_rel_k"]?.dims ?? []
            guard rel.count == 3, rel[0] == 1, rel[1] % 2 == 1 else { throw .shapeMismatch(tensor: a + ".emb_rel_k", expected: [1, -1, -1], found: rel) }
            layers.append(Layer(
                query: try source.conv(a + ".conv_q"), key: try source.conv(a + ".conv_k"),
                value: try source.conv(a + ".conv_v"), output: try source.conv(a + ".conv_o"),
                relativeKeys: try source.floats(a + ".emb_rel_k", shape: rel), relativeValues: try source.floats(a + ".emb_rel_v", shape: rel),
                norm1Gamma: try source.floats("enc_p.encoder.norm_layers_1.\(i).gamma", shape: [hidden]),
                norm1Beta: try source.floats("enc_p.encoder.norm_layers_1.\(i).beta", shape: [hidden]),
                norm2Gamma: try source.floats("enc_p.encoder.norm_layers_2.\(i).gamma", shape: [hidden]),
                norm2Beta: try source.floats("enc_p.encoder.norm_layers_2.\(i).beta", shape: [hidden]),
                ffnIn: try source.conv("enc_p.encoder.ffn_layers.\(i).conv_1"), ffnOut: try source.conv("enc_p.encoder.ffn_layers.\(i).conv_2")))
        }
        guard let first = layers.first else { throw .format(.missingTensor(name: "enc_p.encoder.attn_layers.0.emb_rel_k")) }
        let relDims = source.model.initializers["enc_p.encoder.attn_layers.0.emb_rel_k"]?.dims ?? []
        guard relDims[2] > 0, hidden % relDims[2] == 0, first.norm1Gamma.count == hidden else { throw .invalidHyperparameter(key: "attention head size", value: "\(relDims[2])") }
        heads = hidden / relDims[2]
        window = relDims[1] / 2
        self.layers = layers
        projection = try source.conv("enc_p.proj")
    }

    var byteCount: Int {
        4 * embedding.count + projection.byteCount + layers.reduce(0) { sum, l in
            sum + l.query.byteCount + l.key.byteCount + l.value.byteCount + l.output.byteCount + l.ffnIn.byteCount + l.ffnOut.byteCount
                + 4 * (l.relativeKeys.count + l.relativeValues.count + 4 * hidden)
        }
    }

    /// The encoder's hidden states (hidden, n) and the prior statistics (2·hidden, n).
    func callAsFunction(_ ids: [Int], threads: Int) -> (hidden: FeatureMap, statistics: FeatureMap) {
        let n = ids.count
        var x = FeatureMap(channels: hidden, length: n)
        let scale = Float(hidden).squareRoot()
        for (t, id) in ids.enumerated() {
            for c in 0..<hidden { x.data[c * n + t] = embedding[id * hidden + c] * scale }
        }
        for layer in layers {
            var y = attention(layer, x, threads: threads)
            y.add(x)
            y.layerNorm(gamma: layer.norm1Gamma, beta: layer.norm1Beta)
            x = y
            var f = layer.ffnIn(x, threads: threads)
            for i in f.data.indices where f.data[i] < 0 { f.data[i] = 0 }
            var z = layer.ffnOut(f, threads: threads)
            z.add(x)
            z.layerNorm(gamma: layer.norm2Gamma, beta: layer.norm2Beta)
            x = z
        }
        return (x, projection(x, threads: threads))
    }

    /// Multi-head self-attention with relative positions (no mask: one unpadded utterance).
    /// The (head, query) rows are split over threads; each row's sums run in the same order
    /// whatever the split, so the output does not depend on the thread count.
    private func attention(_ layer: Layer, _ x: FeatureMap, threads: Int) -> FeatureMap {
        let n = x.length, d = hidden / heads, w = window, heads = heads
        let q = layer.query(x, threads: threads), k = layer.key(x, threads: threads), v = layer.value(x, threads: threads)
        var context = FeatureMap(uninitializedChannels: hidden, length: n)
        let scale = 1 / Float(d).squareRoot()
        // Positions-major copies per head so every dot product runs over contiguous memory.
        var qt = [Float](repeating: 0, count: heads * n * d), kt = qt, vt = qt  // (heads, n, d)
        for h in 0..<heads {
            for e in 0..<d {
                for t in 0..<n {
                    qt[(h * n + t) * d + e] = q.data[(h * d + e) * n + t] * scale
                    kt[(h * n + t) * d + e] = k.data[(h * d + e) * n + t]
                    vt[(h * n + t) * d + e] = v.data[(h * d + e) * n + t]
                }
            }
        }
        let rows = heads * n, parts = max(1, min(threads, rows * n * d / 65_536))
        qt.withUnsafeBufferPointer { qp in
            kt.withUnsafeBufferPointer { kp in
                vt.withUnsafeBufferPointer { vp in
                    layer.relativeKeys.withUnsafeBufferPointer { rk in
                        layer.relativeValues.withUnsafeBufferPointer { rv in
                            context.data.withUnsafeMutableBufferPointer { cp in
                                nonisolated(unsafe) let (qs, ks, vs, rks, rvs, ctx) = (qp.baseAddress!, kp.baseAddress!, vp.baseAddress!, rk.baseAddress!, rv.baseAddress!, cp.baseAddress!)
                                let work: @Sendable (Int) -> Void = { part in
                                    let scores = UnsafeMutablePointer<Float>.allocate(capacity: n), out = UnsafeMutablePointer<Float>.allocate(capacity: d)
                                    defer { scores.deallocate(); out.deallocate() }
                                    for row in rows * part / parts..<rows * (part + 1) / parts {
                                        let h = row / n, i = row % n
                                        let qi = qs + row * d, kh = ks + h * n * d, vh = vs + h * n * d
                                        var maxScore = -Float.infinity
                                        for j in 0..<n {
                                            var s = Self.dot(qi, kh + j * d, d)
                                            if abs(j - i) <= w { s += Self.dot(qi, rks + (j - i + w) * d, d) }
                                            scores[j] = s
                                            maxScore = max(maxScore, s)
                                        }
                                        var total: Float = 0
                                        for j in 0..<n {
                                            scores[j] = exp(scores[j] - maxScore)
                                            total += scores[j]
                                        }
                                        for e in 0..<d { out[e] = 0 }
                                        for j in 0..<n {
                                            let p = scores[j] / total
                                            let vj = vh + j * d
                                            for e in 0..<d { out[e] += p * vj[e] }
                                            if abs(j - i) <= w {
                                                let r = rvs + (j - i + w) * d
                                                for e in 0..<d { out[e] += p * r[e] }
                                            }
                                        }
                                        for e in 0..<d { ctx[(h * d + e) * n + i] = out[e] }
                                    }
                                }
                                if parts == 1 { work(0) } else { ComputePool.run(threads: threads, parts: parts) { work($0) } }
                            }
                        }
                    }
                }
            }
        }
        return layer.output(context, threads: threads)
    }

    private static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ count: Int) -> Float {
        var s: Float = 0
        for e in 0..<count { s += a[e] * b[e] }
        return s
    }
}
