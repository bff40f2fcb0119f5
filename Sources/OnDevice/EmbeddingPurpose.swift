/// What embedded text is for; models trained with task prefixes (nomic-embed) embed queries and
/// documents differently, others ignore it.
public enum EmbeddingPurpose: Sendable, Equatable {
    case query
    case document
}
