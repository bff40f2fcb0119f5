/// The faces in one photo, best first, and the size of the upright image they refer to (after
/// EXIF orientation).
public struct FaceDetectionResult: Sendable, Equatable {
    public let imageWidth: Int
    public let imageHeight: Int
    public let faces: [DetectedFace]
    /// The detector's catalog id.
    public let model: String
    /// The main face's mesh, when asked for and a face was found.
    public var mesh: FaceMeshResult? = nil
    /// Variance of the Laplacian of the luminance inside the largest face box (higher is
    /// sharper; compare faces of similar size in pixels), when asked for with the mesh.
    public var faceSharpness: Double? = nil
}
