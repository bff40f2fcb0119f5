import Foundation

/// A photo found by `PhotoLibrary.searchText(_:in:count:)`.
public struct PhotoTextMatch: Sendable, Equatable {
    public let url: URL
    /// The ranking score (higher is better): the word score when search matches words only,
    /// else the fusion of the word and meaning rankings.
    public let score: Double
    /// The text read in the photo, one line per line.
    public let text: String
    /// What the photo shows, most likely first (ImageNet classes); empty when not labelled.
    public let labels: [String]
    /// Σ idf of the query words in the text and labels (+1 for the whole phrase); 0 when none.
    public let wordScore: Double
    /// Cosine similarity of the photo's embedding to the query's; nil when search matched words
    /// only.
    public let similarity: Float?
}
