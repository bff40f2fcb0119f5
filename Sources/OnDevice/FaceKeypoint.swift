/// A point on a detected face, normalized to the image like the face's box.
public struct FaceKeypoint: Sendable, Equatable {
    /// Which point; right and left are the subject's, so in an unmirrored frontal photo the right
    /// eye is on the image's left.
    public enum Kind: String, Sendable, CaseIterable {
        case rightEye, leftEye, noseTip, mouthCenter, rightEarTragion, leftEarTragion
    }

    public let kind: Kind
    /// 0 at the image's left and top edges, 1 at the right and bottom.
    public let x: Float
    public let y: Float
}
