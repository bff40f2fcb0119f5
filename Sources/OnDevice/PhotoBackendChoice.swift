/// The backend an app asks for.
public enum PhotoBackendChoice: String, Sendable, CaseIterable {
    /// The model when it is installed and runs here, else perceptual.
    case automatic = "auto"
    case perceptual
    case neural
}
