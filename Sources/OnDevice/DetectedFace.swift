/// One face: the detector's confidence, its box and six keypoints, normalized to the image
/// (multiply by `FaceDetectionResult.imageWidth`/`imageHeight` for pixels).
public struct DetectedFace: Sendable, Equatable {
    /// 0...1; faces under 0.5 are not reported.
    public let score: Float
    public let x: Float
    public let y: Float
    public let width: Float
    public let height: Float
    public let keypoints: [FaceKeypoint]
}
