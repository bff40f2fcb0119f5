/// A passage a grounded answer was given, numbered as the prompt (and the answer's `[n]`) name it.
public struct AnswerCitation: Sendable, Equatable {
    public let number: Int
    public let passage: LibraryPassage
}
