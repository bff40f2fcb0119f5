import Foundation

/// A photo and its similarity (cosine, 1 = same) to the query.
public struct SimilarPhoto: Sendable, Equatable {
    public let url: URL
    public let similarity: Float
}
