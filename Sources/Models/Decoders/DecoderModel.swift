import Formats
import Kernels
import Tensor

/// A loaded decoder-only language model: immutable, shareable across sessions.
package protocol DecoderModel: Sendable {
    var config: DecoderConfig { get }
    var weights: DecoderWeights { get }

    /// Runs `tokens`, row r at `rows.positions[r]` of its run's sequence, appending each run's
    /// keys and values to that sequence's cache; the logits of each run's last row land in the
    /// run's `state.logits`. `scratch` lends the buffers, the kernel threads and the LoRA
    /// adapters the pass uses (every run's sequence must apply the same adapters). When
    /// `allLogits` is given (one run only), every row's logits land there too, as (rows, vocab).
    ///
    /// Preconditions (checked by the engine, which owns the typed errors): the tokens fit in
    /// their contexts, which are at most the scratch's; there are at most `scratch.maxBatch`
    /// of them; they are valid vocabulary ids.
    func forward(_ tokens: UnsafeBufferPointer<Int32>, rows: DecoderRows, scratch: DecoderState, allLogits: UnsafeMutablePointer<Float>?)
}

extension DecoderModel {
    /// Runs `tokens` at positions `state.count ..< state.count + tokens.count` of one sequence,
    /// appending their keys and values to the state's cache. The logits of the last token land
    /// in `state.logits`; when `allLogits` is given, every token's logits land there too, as
    /// (tokens.count, vocab).
    package func forward(_ tokens: UnsafeBufferPointer<Int32>, state: DecoderState, allLogits: UnsafeMutablePointer<Float>?) {
        forward(tokens, rows: DecoderRows(state, count: tokens.count), scratch: state, allLogits: allLogits)
    }
}

/// Loads the decoder that `file` declares, chosen by its architecture.
package func loadDecoder(file: GGUFFile) throws(ModelError) -> any DecoderModel {
    let config = try DecoderConfig(file: file)
    let weights = try DecoderWeights(file: file, config: config)
    switch config.architecture {
    case .llama: return LlamaModel(config: config, weights: weights)
    case .gemma3: return Gemma3Model(config: config, weights: weights)
    case .qwen2: return Qwen2Model(config: config, weights: weights)
    case .qwen3: return Qwen3Model(config: config, weights: weights)
    case .phi3: return Phi3Model(config: config, weights: weights)
    case .gemma2: return Gemma2Model(config: config, weights: weights)
    }
}
