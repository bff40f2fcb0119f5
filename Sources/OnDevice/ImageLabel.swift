/// One ImageNet class an image may show.
public struct ImageLabel: Sendable, Equatable {
    /// The class's ImageNet name ("tabby, tabby cat").
    public let name: String
    /// Its index among ImageNet's 1,000 classes.
    public let classIndex: Int
    /// Softmax over every class, 0...1.
    public let probability: Double
    /// The network's raw score.
    public let logit: Float
}
