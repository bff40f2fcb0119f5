import TextGeneration

/// A generated token with its log-probability under the model and the tokens that were most
/// likely at its step (ask for them with `TextOptions.logprobs`).
///
/// The figures are the model's own distribution, the log-softmax of the raw logits, before the
/// repetition penalty, temperature, top-k/top-p/min-p and any output grammar: they describe the
/// model and the text, not the sampling settings (as llama.cpp's and vLLM's servers report by
/// default).
public struct GeneratedToken: Sendable, Equatable {
    /// One of the most likely tokens at a step.
    public struct Alternative: Sendable, Equatable {
        public var id: Int32
        /// The token's bytes (a token can hold part of a UTF-8 character).
        public var bytes: [UInt8]
        /// Natural log, ≤ 0.
        public var logprob: Float
        /// The bytes as text (an incomplete UTF-8 sequence shows as U+FFFD).
        public var text: String { String(decoding: bytes, as: UTF8.self) }
    }

    public var id: Int32
    public var bytes: [UInt8]
    /// Natural log, ≤ 0.
    public var logprob: Float
    /// The most likely tokens at this step, most likely first (as many as asked for).
    public var alternatives: [Alternative]
    /// The bytes as text (an incomplete UTF-8 sequence shows as U+FFFD).
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    init(_ figures: TokenLogprob) {
        id = figures.id
        bytes = figures.bytes
        logprob = figures.logprob
        alternatives = figures.top.map { Alternative(id: $0.id, bytes: $0.bytes, logprob: $0.logprob) }
    }
}
