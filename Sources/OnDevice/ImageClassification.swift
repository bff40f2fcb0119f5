/// What an image classifier found.
public struct ImageClassification: Sendable, Equatable {
    /// The most likely classes, most likely first.
    public let labels: [ImageLabel]
    /// The classifier's catalog id (or path).
    public let model: String
    /// Seconds the network ran, decoding and resizing the image not counted.
    public let networkSeconds: Double
}
