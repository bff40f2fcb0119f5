import Foundation
import Models
import StructuredOutput
import Tokenizers

/// One conversation's mutable state over a shared `LanguageModel`: the tokens evaluated so far
/// and their KV cache. Not thread-safe; one task drives a session at a time.
package final class Session {
    package let model: LanguageModel
    package let state: DecoderState
    /// Tokens whose keys and values are in the cache, in order.
    package private(set) var tokens: [Int32] = []

    /// - Parameters:
    ///   - contextLength: tokens the session can hold; defaults to min(model context, 4096).
    ///   - threads: kernel threads; defaults to the machine's core count.
    package init(model: LanguageModel, contextLength: Int? = nil, threads: Int? = nil) {
        self.model = model
        let ctx = min(contextLength ?? 4096, model.config.contextLength)
        self.state = DecoderState(config: model.config, contextLength: max(ctx, 1), maxBatch: 512,
                                  threads: threads ?? ProcessInfo.processInfo.activeProcessorCount)
        tokens.reserveCapacity(state.contextLength)
    }

    package var contextLength: Int { state.contextLength }
    package var vocabularySize: Int { model.config.vocabularySize }
    package var threads: Int {
        get { state.threads }
        set { state.threads = max(1, newValue) }
    }

    /// Logits after the last evaluated token. (vocab)
    package var logits: UnsafeMutablePointer<Float> { state.logits }

    /// Makes the cache hold exactly `prompt`, reusing the longest cached prefix (prompt cache)
    /// and evaluating the rest in batches. At least the last token is always evaluated so the
    /// logits belong to this prompt. Returns how many tokens were reused.
    @discardableResult
    package func prefill(_ prompt: [Int32]) throws(EngineError) -> Int {
        guard !prompt.isEmpty else { throw .emptyPrompt }
        guard prompt.count <= contextLength else { throw .contextOverflow(tokens: prompt.count, contextLength: contextLength) }
        try validate(prompt)
        let common = min(Self.sharedPrefix(tokens, prompt), prompt.count - 1)
        truncate(to: common)
        try evaluate(prompt[common...])
        return common
    }

    /// Appends `newTokens` to the cache, in batches of up to the state's batch size.
    /// When `allLogits` is given it receives (newTokens.count, vocab) logits.
    package func evaluate(_ newTokens: ArraySlice<Int32>, allLogits: UnsafeMutablePointer<Float>? = nil) throws(EngineError) {
        guard !newTokens.isEmpty else { throw .emptyPrompt }
        guard tokens.count + newTokens.count <= contextLength else {
            throw .contextOverflow(tokens: tokens.count + newTokens.count, contextLength: contextLength)
        }
        try validate(newTokens)
        if allLogits == nil {
            // Through the model's batcher: passes other sessions ask for at the same time share
            // one step (continuous batching); alone, the pass runs at once.
            model.batcher.evaluate(newTokens, state: state, model: model.decoder)
            tokens.append(contentsOf: newTokens)
            return
        }
        var start = newTokens.startIndex
        while start < newTokens.endIndex {
            let end = min(start + state.maxBatch, newTokens.endIndex)
            let out = allLogits.map { $0 + (start - newTokens.startIndex) * vocabularySize }
            newTokens[start..<end].withUnsafeBufferPointer { model.decoder.forward($0, state: state, allLogits: out) }
            tokens.append(contentsOf: newTokens[start..<end])
            start = end
        }
    }

    /// LoRA adapters (with scales) every evaluation applies; empty for the base model alone.
    package var adapters: [ScaledAdapter] { state.adapters }

    /// Applies `adapters` (several add their deltas) from the next evaluation on. The cache was
    /// computed with the previous set, so a change clears it; the same set keeps it (prompt
    /// cache). Each adapter is checked against this session's model first.
    package func setAdapters(_ adapters: [ScaledAdapter]) throws(EngineError) {
        guard adapters != state.adapters else { return }
        for a in adapters {
            guard a.scale.isFinite else { throw .invalidAdapterScale(a.scale) }
            do { try a.adapter.validate(for: model.decoder) } catch { throw .model(error) }
        }
        reset()
        state.adapters = adapters
    }

    /// A copy of the keys and values of every cached token (`tokens`), for a prompt cache.
    package func copyCache() -> KVPrefix { state.copyPrefix(tokens.count) }

    /// Makes the cache hold `prefix` — whose keys and values are the first `prefix.count`
    /// positions of `copy`, computed by this model with `adapters` — and nothing after it. Only
    /// the positions past what the cache already shares with `prefix` are copied.
    package func restore(_ prefix: ArraySlice<Int32>, from copy: KVPrefix, adapters: [ScaledAdapter]) {
        precondition(prefix.count <= copy.count && prefix.count <= contextLength)
        let kept = adapters == state.adapters ? Self.sharedPrefix(tokens, prefix) : 0
        state.adapters = adapters
        state.restore(copy, positions: kept..<prefix.count)
        tokens.removeSubrange(kept...)
        tokens.append(contentsOf: prefix.dropFirst(kept))
    }

    /// How many leading tokens `a` and `b` share.
    package static func sharedPrefix(_ a: some RandomAccessCollection<Int32>, _ b: some RandomAccessCollection<Int32>) -> Int {
        var (i, j, n) = (a.startIndex, b.startIndex, 0)
        while i != a.endIndex && j != b.endIndex && a[i] == b[j] {
            (i, j, n) = (a.index(after: i), b.index(after: j), n + 1)
        }
        return n
    }

    /// Forgets cached tokens after the first `count`.
    package func truncate(to count: Int) {
        guard count < tokens.count else { return }
        tokens.removeSubrange(count...)
        state.truncate(to: count)
    }

    /// Clears the whole cache.
    package func reset() { truncate(to: 0) }

    private func validate<C: Collection>(_ ids: C) throws(EngineError) where C.Element == Int32 {
        for id in ids where id < 0 || Int(id) >= vocabularySize {
            throw .invalidToken(id: id, vocabularySize: vocabularySize)
        }
    }
}
