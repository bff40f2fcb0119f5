import StructuredOutput

/// Why generation ended.
public enum FinishReason: String, Sendable, Equatable, Codable {
    /// The model finished its answer.
    case stop
    /// A caller-supplied stop string appeared.
    case stopSequence = "stop_sequence"
    /// `maxTokens` were generated.
    case length
    /// The context filled up.
    case contextFull = "context_full"
    /// The caller cancelled.
    case cancelled

    init(_ r: StructuredOutput.FinishReason) {
        switch r {
        case .endOfGeneration, .grammarComplete: self = .stop
        case .stopSequence: self = .stopSequence
        case .length: self = .length
        case .contextFull: self = .contextFull
        case .cancelled: self = .cancelled
        }
    }
}
