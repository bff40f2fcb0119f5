/// The keys and values of a sequence's first `count` positions, copied out of a `DecoderState`
/// so another state of the same model can start from them instead of evaluating those tokens
/// again (a prompt cache kept beside the sessions, as llama-server keeps slot prompts in RAM).
///
/// `@unchecked Sendable`: the storage is written once, in `DecoderState.copyPrefix`, before the
/// value is shared, and only read afterwards; it is freed in `deinit`.
package final class KVPrefix: @unchecked Sendable {
    /// Positions held.
    package let count: Int
    let layerCount: Int
    let kvDim: Int
    // (layers, 2, count, kvDim): each layer's keys, then its values
    let storage: UnsafeMutablePointer<Float>

    init(count: Int, layerCount: Int, kvDim: Int) {
        self.count = count
        self.layerCount = layerCount
        self.kvDim = kvDim
        storage = .allocate(capacity: max(1, 2 * layerCount * count * kvDim))
    }

    deinit { storage.deallocate() }

    /// Bytes the copy holds.
    package var byteCount: Int { 4 * 2 * layerCount * count * kvDim }

    /// Bytes a copy of `count` positions of a model shaped as `config` holds.
    package static func byteCount(config: DecoderConfig, count: Int) -> Int { 4 * 2 * config.layerCount * count * config.kvDim }
}

extension DecoderState {
    /// A copy of the keys and values of the first `count` cached positions.
    package func copyPrefix(_ count: Int) -> KVPrefix {
        precondition(count >= 0 && count <= self.count, "only cached positions can be copied")
        let prefix = KVPrefix(count: count, layerCount: config.layerCount, kvDim: config.kvDim)
        let rows = count * config.kvDim
        for layer in 0..<config.layerCount {
            let out = prefix.storage + 2 * layer * rows
            out.update(from: keys(layer: layer, position: 0), count: rows)
            (out + rows).update(from: values(layer: layer, position: 0), count: rows)
        }
        return prefix
    }

    /// Makes the cache hold the first `positions.upperBound` positions, taking `positions` from
    /// `prefix` (copied from a state of the same model) and keeping the ones before them.
    package func restore(_ prefix: KVPrefix, positions: Range<Int>) {
        precondition(prefix.layerCount == config.layerCount && prefix.kvDim == config.kvDim, "a prefix of another model")
        precondition(positions.lowerBound >= 0 && positions.lowerBound <= count)
        precondition(positions.upperBound <= prefix.count && positions.upperBound <= contextLength)
        let rows = positions.count * config.kvDim
        let stride = prefix.count * config.kvDim
        let skip = positions.lowerBound * config.kvDim
        for layer in 0..<config.layerCount {
            let source = prefix.storage + 2 * layer * stride + skip
            keys(layer: layer, position: positions.lowerBound).update(from: source, count: rows)
            values(layer: layer, position: positions.lowerBound).update(from: source + stride, count: rows)
        }
        count = positions.upperBound
    }
}
