import Foundation
import ModelStore

/// Where a model or adapter that is not in the pinned catalog is downloaded from.
public enum DownloadSource: Sendable, Equatable {
    /// A file of a Hugging Face repository (base URL from `HF_ENDPOINT`, token from `HF_TOKEN`).
    case huggingFace(repo: String, revision: String = "main", file: String, sha256: String? = nil)
    /// Any HTTP(S) URL; its sha256 is required because nothing else names the content.
    case url(URL, sha256: String)

    /// Reads `hf:OWNER/REPO[@REVISION]/FILE` or an `http(s)://` URL, the forms `ondevice models
    /// pull` takes; nil for anything else (a catalog id, say).
    public init?(_ text: String, sha256: String? = nil) throws {
        if text.hasPrefix("hf:") {
            switch try Self.spec(text, sha256: sha256, id: nil) {
            case let .huggingFace(_, repo, revision, file, digest): self = .huggingFace(repo: repo, revision: revision, file: file, sha256: digest)
            default: return nil
            }
        } else if text.hasPrefix("http://") || text.hasPrefix("https://") {
            guard let url = URL(string: text), url.host != nil else { throw OnDeviceError(store: .unsupportedURL(url: text)) }
            guard let sha256 else { throw OnDeviceError.invalidArgument("\(text): a URL source needs its sha256") }
            self = .url(url, sha256: sha256)
        } else {
            return nil
        }
    }

    /// The store's pull spec for this source, named `id` (for Hugging Face, derived from the
    /// file's name when nil).
    func spec(id: String?) throws(OnDeviceError) -> PullSpec {
        switch self {
        case let .huggingFace(repo, revision, file, sha256): try Self.spec("hf:\(repo)@\(revision)/\(file)", sha256: sha256, id: id)
        case let .url(url, sha256):
            // A URL names neither the model nor its content: the id must be given.
            try Self.spec(url.absoluteString, sha256: sha256, id: id ?? "")
        }
    }

    private static func spec(_ text: String, sha256: String?, id: String?) throws(OnDeviceError) -> PullSpec {
        do { return try PullSpec.parse(text, sha256: sha256, id: id) } catch { throw OnDeviceError(store: error) }
    }
}

/// The adapters' name for `DownloadSource`.
public typealias AdapterSource = DownloadSource
