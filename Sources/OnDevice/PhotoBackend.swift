/// Which backend describes photos for similarity.
public enum PhotoBackend: Sendable, Equatable, CustomStringConvertible {
    /// The image-feature model (`model` is its catalog id).
    case neural(model: String)
    /// The built-in perceptual descriptor; `reason` says why the model is not used.
    case perceptual(reason: String)

    public var description: String {
        switch self {
        case .neural(let model): "neural (\(model))"
        case .perceptual(let reason): "perceptual (\(reason))"
        }
    }
}
