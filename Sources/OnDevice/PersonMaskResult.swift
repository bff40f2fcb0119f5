import Foundation
import ModelStore
import Models
import Photos
import Runtime

/// A person mask: how likely each pixel of the upright image belongs to a person, 0...1.
public struct PersonMaskResult: Sendable, Equatable {
    public let imageWidth: Int
    public let imageHeight: Int
    /// `imageWidth * imageHeight` values, row-major, person high.
    public let values: [Float]
    /// The segmenter's catalog id.
    public let model: String
    /// Variance of the Laplacian of the luminance over the pixels whose value is over 0.5 (the
    /// person): the subject's sharpness, whatever the background does; nil when under 64
    /// pixels are the subject. Higher is sharper; compare photos of similar size in pixels.
    public let subjectSharpness: Double?

    /// Share of pixels over 0.5.
    public var personFraction: Double {
        values.isEmpty ? 0 : Double(values.lazy.filter { $0 > 0.5 }.count) / Double(values.count)
    }

    /// The mask as an 8-bit grayscale PNG (255 where the mask is 1).
    public func pngData() throws -> Data {
        do { return Data(try PersonMask.png(values, width: imageWidth, height: imageHeight)) } catch {
            throw OnDeviceError(code: .invalidArgument, message: error.description, cause: error)
        }
    }
}
