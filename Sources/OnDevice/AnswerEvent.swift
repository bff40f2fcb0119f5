/// What `ask` streams, in order: the citations once, the answer's text as it is generated,
/// then `finished` once (unless an error or cancellation ends the stream).
public enum AnswerEvent: Sendable, Equatable {
    case retrieved([AnswerCitation], method: LibrarySearchMethod)
    case partial(String)
    case finished(GroundedAnswer)
}
