import EngineSupport
import Foundation
import Platform
import Retrieval
import TextGeneration
import Tokenizers

/// How `ask` answers.
public struct AskOptions: Sendable, Equatable {
    /// Passages retrieved for the question.
    public var passages = 4
    /// The text model (nil: the instance's model for chat).
    public var model: String?
    /// The answer's generation: greedy and at most 200 tokens unless changed. The prompt must
    /// fit the session's context with `maxTokens` to spare; passages that do not are dropped,
    /// lowest-ranked first.
    public var text: TextOptions
    /// The system instruction: answer from the numbered passages only, cite them, admit not knowing.
    public var instructions = RAGPrompt.instructions

    public init() {
        text = TextOptions()
        text.temperature = 0
        text.maxTokens = 200
    }
}
