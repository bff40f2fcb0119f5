import Foundation

/// What culling measured of one frame.
public struct PhotoFrame: Sendable, Equatable {
    public let url: URL
    /// Variance of the Laplacian of the luminance (higher is sharper).
    public let sharpness: Double
    /// Fraction of pixels blown out or crushed to black.
    public let clipping: Double
    /// Sharpness discounted by clipping: the rank without faces.
    public let score: Double
    /// EXIF capture time, when the file has one.
    public let captureTime: String?
    /// Why it ranks where it does, in words.
    public let reason: String
}
