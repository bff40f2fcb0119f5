import Foundation

/// Channels-first activations of one utterance: `data[c * length + t]`. // (channels, length)
struct FeatureMap {
    var channels: Int
    var length: Int
    var data: [Float]

    init(channels: Int, length: Int, data: [Float]? = nil) {
        precondition(data == nil || data!.count == channels * length, "feature map size")
        self.channels = channels
        self.length = length
        self.data = data ?? [Float](repeating: 0, count: channels * length)
    }

    /// A map whose every value the caller writes before reading (no zero-fill pass).
    init(uninitializedChannels channels: Int, length: Int) {
        self.channels = channels
        self.length = length
        data = [Float](unsafeUninitializedCapacity: channels * length) { _, count in count = channels * length }
    }

    /// Channels `range` as a new map (the halves of a coupling layer, means vs log-scales).
    func slice(_ range: Range<Int>) -> FeatureMap {
        FeatureMap(channels: range.count, length: length, data: Array(data[range.lowerBound * length..<range.upperBound * length]))
    }

    mutating func add(_ other: FeatureMap) {
        precondition(other.data.count == data.count, "feature map add")
        for i in data.indices { data[i] += other.data[i] }
    }

    /// LayerNorm over the channels at each step (VITS `modules.LayerNorm`, eps 1e-5). Sums run
    /// row by row over all steps at once (contiguous, vectorizable), in the same channel order
    /// per step as a per-step loop.
    mutating func layerNorm(gamma: [Float], beta: [Float]) {
        let n = Float(channels), length = length, channels = channels
        precondition(gamma.count == channels && beta.count == channels, "layer norm parameters")
        let mean = UnsafeMutablePointer<Float>.allocate(capacity: length), scale = UnsafeMutablePointer<Float>.allocate(capacity: length)
        defer { mean.deallocate(); scale.deallocate() }
        mean.initialize(repeating: 0, count: length)
        scale.initialize(repeating: 0, count: length)
        data.withUnsafeMutableBufferPointer { p in
            let x = p.baseAddress!
            for c in 0..<channels {
                let row = x + c * length
                for t in 0..<length { mean[t] += row[t] }
            }
            for t in 0..<length { mean[t] /= n }
            for c in 0..<channels {
                let row = x + c * length
                for t in 0..<length {
                    let d = row[t] - mean[t]
                    scale[t] += d * d
                }
            }
            for t in 0..<length { scale[t] = 1 / (scale[t] / n + 1e-5).squareRoot() }
            for c in 0..<channels {
                let row = x + c * length, g = gamma[c], b = beta[c]
                for t in 0..<length { row[t] = (row[t] - mean[t]) * scale[t] * g + b }
            }
        }
    }

    /// The exact GELU, x·Φ(x), as PyTorch's default (erf) form.
    mutating func gelu() {
        for i in data.indices { data[i] = 0.5 * data[i] * (1 + erf(data[i] * 0.70710678118654752)) }
    }

    /// Reverses the channel order (VITS `Flip`).
    mutating func flipChannels() {
        var flipped = data
        for c in 0..<channels {
            let src = (channels - 1 - c) * length
            flipped.replaceSubrange(c * length..<(c + 1) * length, with: data[src..<src + length])
        }
        data = flipped
    }
}
