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

    /// LayerNorm over the channels at each step (VITS `modules.LayerNorm`, eps 1e-5).
    mutating func layerNorm(gamma: [Float], beta: [Float]) {
        let n = Float(channels)
        for t in 0..<length {
            var mean: Float = 0
            for c in 0..<channels { mean += data[c * length + t] }
            mean /= n
            var variance: Float = 0
            for c in 0..<channels {
                let d = data[c * length + t] - mean
                variance += d * d
            }
            let inv = 1 / (variance / n + 1e-5).squareRoot()
            for c in 0..<channels { data[c * length + t] = (data[c * length + t] - mean) * inv * gamma[c] + beta[c] }
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
