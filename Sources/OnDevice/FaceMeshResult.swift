/// The 468-point face mesh of a photo's main face (the largest of its first four faces) and the
/// figures read from it.
public struct FaceMeshResult: Sendable, Equatable {
    /// One mesh point: x, y normalized to the image, z relative depth in the unit of x (smaller is
    /// closer to the camera).
    public struct Point: Sendable, Equatable {
        public let x: Float, y: Float, z: Float
    }

    /// Index into `FaceDetectionResult.faces` of the face the mesh was built from.
    public let faceIndex: Int
    /// 468 points in MediaPipe's face mesh order.
    public let points: [Point]
    /// Eye aspect ratio (eye height over width, about 0.3 for an open eye, lower as it closes)
    /// of the eye on the image's left and the one on its right. Blur lowers it too.
    public let leftEyeAspectRatio: Double
    public let rightEyeAspectRatio: Double
    /// How sure the mesh is that it sees a face, 0.5...1.
    public let presence: Float
}
