import Foundation

/// One burst of a culled folder: frames ranked best first.
public struct PhotoBurst: Sendable, Equatable {
    /// Ranked best first; `files[0] == pick`.
    public let files: [URL]
    public let pick: URL
    /// Why each file ranks where it does, parallel to `files`.
    public let reasons: [String]
    /// The measurements behind the ranking, parallel to `files`.
    public let frames: [PhotoFrame]
}
