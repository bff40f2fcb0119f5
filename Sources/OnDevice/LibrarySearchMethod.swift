/// How a search ranked its passages.
public enum LibrarySearchMethod: Sendable, Equatable, CustomStringConvertible {
    /// By meaning, with the vectors of this embedding backend (`approximate`: the HNSW graph
    /// rather than an exact scan).
    case semantic(model: String, revision: String, preprocessing: String, dimension: Int, approximate: Bool)
    /// By words (BM25) only, because of `reason` (asked for, or no embedding model to be had).
    case lexical(reason: String)

    public var description: String {
        switch self {
        case let .semantic(model, revision, _, dimension, approximate):
            "semantic (\(model) @\(revision.prefix(12)), \(dimension) dims, \(approximate ? "approximate" : "exact"))"
        case .lexical(let reason): "lexical BM25 (\(reason))"
        }
    }
}
