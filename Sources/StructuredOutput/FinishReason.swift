/// Why generation ended.
package enum FinishReason: String, Sendable, Equatable, Codable {
    /// The model emitted an end-of-generation token.
    case endOfGeneration = "eog"
    /// A stop string appeared in the text.
    case stopSequence = "stop"
    /// `maxTokens` were generated.
    case length
    /// The context is full.
    case contextFull = "context"
    /// The caller cancelled.
    case cancelled
    /// A token constraint (e.g. a JSON Schema grammar) says the output is complete.
    case grammarComplete = "complete"
}
