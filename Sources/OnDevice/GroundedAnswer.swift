/// An answer grounded in a library's passages.
public struct GroundedAnswer: Sendable, Equatable {
    public let text: String
    /// The passages the model was given, best first (fewer than asked when they did not fit).
    public let citations: [AnswerCitation]
    /// How the passages were found.
    public let method: LibrarySearchMethod
    /// The generation: tokens, timings, finish reason.
    public let result: TextResult
}
