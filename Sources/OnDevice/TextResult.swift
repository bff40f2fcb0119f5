import TextGeneration

/// The outcome of a text op.
public struct TextResult: Sendable, Equatable {
    public var text: String
    public var metrics: TextMetrics
    /// The prompt's token ids as the model saw them (of the op's last model call).
    public var promptTokenIDs: [Int32] = []
    /// The generated token ids (of the op's last model call), end-of-generation token included.
    public var tokenIDs: [Int32] = []
    /// With `TextOptions.logprobs`: the tokens of `text`, each with its log-probability and the
    /// most likely alternatives (of the op's last model call). nil when not asked for.
    public var logprobs: [GeneratedToken]?

    public init(text: String, metrics: TextMetrics, promptTokenIDs: [Int32] = [], tokenIDs: [Int32] = []) {
        self.text = text
        self.metrics = metrics
        self.promptTokenIDs = promptTokenIDs
        self.tokenIDs = tokenIDs
    }

    /// One model call's reply, with `metrics` for the whole op (the call's own by default).
    init(_ outcome: TextOutcome, metrics: TextMetrics? = nil) {
        var m = TextMetrics()
        m.add(outcome.result.metrics, first: true)
        self.init(text: outcome.content, metrics: metrics ?? m, promptTokenIDs: outcome.result.promptIds,
                  tokenIDs: outcome.result.generatedIds)
        logprobs = outcome.logprobs?.map(GeneratedToken.init)
    }
}
