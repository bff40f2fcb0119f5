import Imaging

/// Which backend made a descriptor, exactly: descriptors are comparable only when these are equal.
package struct DescriptorIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Backend name: `perceptual` or `efficientnet-lite0`.
    package var name: String
    /// The model weights (catalog fingerprint or file digest); `builtin` for the perceptual backend.
    package var modelFingerprint: String
    /// How pixels became numbers, versioned: any change that moves descriptors changes this.
    package var preprocessing: String
    package var dimension: Int

    package init(name: String, modelFingerprint: String, preprocessing: String, dimension: Int) {
        self.name = name
        self.modelFingerprint = modelFingerprint
        self.preprocessing = preprocessing
        self.dimension = dimension
    }

    package var description: String { "\(name)@\(modelFingerprint.prefix(12)) [\(preprocessing), \(dimension)d]" }
}

/// A unit-length vector describing one photo, stamped with the backend that made it. Similarity
/// is the dot product (cosine): both backends lay out their vectors so that is meaningful.
package struct PhotoDescriptor: Sendable, Equatable, Codable {
    package let identity: DescriptorIdentity
    /// (dimension), L2-normalized.
    package let values: [Float]

    package init(identity: DescriptorIdentity, values: [Float]) {
        precondition(values.count == identity.dimension, "PhotoDescriptor: \(values.count) values for \(identity)")
        self.identity = identity
        self.values = values
    }

    /// Cosine similarity in [-1, 1]; refuses descriptors of another backend.
    package func similarity(to other: PhotoDescriptor) throws(PhotosError) -> Float {
        guard identity == other.identity else { throw .incomparableDescriptors(identity, other.identity) }
        var dot: Float = 0
        for i in values.indices { dot += values[i] * other.values[i] }
        return dot
    }

    /// Scales `raw` to unit length (a zero vector stays zero).
    package static func normalized(_ raw: [Float]) -> [Float] {
        let norm = raw.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return norm > 0 ? raw.map { $0 / norm } : raw
    }
}

/// A way of describing photos. Implementations are immutable and thread-safe: the service calls
/// `describe` from several decoding threads at once.
package protocol PhotoDescribing: Sendable {
    var identity: DescriptorIdentity { get }
    /// Similarity at or above which two frames are taken to show the same scene.
    var sameSceneThreshold: Float { get }
    /// The smallest longer side the decoder may reduce a JPEG to for this backend (nil: full size,
    /// when the preprocessing must see exactly the decoded pixels).
    var minimumDecodeSide: Int? { get }
    func describe(_ image: RGBImage) -> PhotoDescriptor
}
