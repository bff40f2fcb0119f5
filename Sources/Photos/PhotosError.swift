import Imaging
import Models

/// What can go wrong describing, comparing and culling photos.
package enum PhotosError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A file could not be decoded (it names the file and the fault).
    case image(ImagingError)
    /// Two descriptors made by different backends: their numbers mean different things.
    case incomparableDescriptors(DescriptorIdentity, DescriptorIdentity)
    /// The requested backend cannot run here (`reason` says why); the caller may fall back.
    case backendUnavailable(name: String, reason: String)
    /// The backend changed while this result was being computed; it was dropped.
    case superseded(generation: UInt64, current: UInt64)
    /// The descriptor cache could not be written.
    case cache(path: String, reason: String)
    /// The folder to scan does not exist or is not a directory.
    case notADirectory(path: String)
    /// A model refused its input or could not run (`file` is the photo it was given).
    case model(file: String, error: ModelError)
    /// Reading text in an image failed inside the models (`reason` names the graph node).
    case recognition(reason: String)

    package var description: String {
        switch self {
        case .image(let e): return e.description
        case .incomparableDescriptors(let a, let b): return "descriptors of \(a) and \(b) cannot be compared"
        case .backendUnavailable(let name, let reason): return "\(name) backend unavailable: \(reason)"
        case .superseded(let g, let current): return "result of backend generation \(g) dropped (now \(current))"
        case .cache(let path, let reason): return "\(path): descriptor cache: \(reason)"
        case .notADirectory(let path): return "\(path): not a directory"
        case .model(let file, let error): return "\(file): \(error)"
        case .recognition(let reason): return "text reading failed: \(reason)"
        }
    }
}
