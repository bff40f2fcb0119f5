/// Everything that can go wrong in the model store, each case saying what and where.
package enum StoreError: Error, Sendable, Equatable {
    // Catalog and manifests
    /// The catalog TSV has no column with this name.
    case catalogMissingColumn(name: String)
    /// A catalog TSV row has a field that does not parse.
    case catalogBadField(line: Int, column: String, value: String)
    /// A catalog TSV row has the wrong number of fields.
    case catalogBadRow(line: Int, fields: Int, expected: Int)
    /// Two catalog rows disagree about a model (kind, source, license) or repeat a file.
    case catalogConflict(id: String, detail: String)
    /// `ondevice.json` (or another JSON document the store reads) does not have the expected shape.
    case manifestInvalid(path: String, detail: String)
    /// An op name that is not one of `Op`'s cases.
    case unknownOp(name: String)

    // Names
    /// A model id that is empty, too long, or has bytes outside `[A-Za-z0-9._-]`.
    case invalidModelId(id: String)
    /// A repo, revision, variant or file name that could escape the store root.
    case invalidPath(path: String)
    /// A source URL the store cannot fetch (not http or https, or unparsable).
    case unsupportedURL(url: String)
    /// A Hugging Face source with no hub base URL configured (`HF_ENDPOINT`).
    case noHubEndpoint(repo: String)
    /// No catalog or registered entry has this id.
    case unknownModel(id: String)
    /// The model is in the catalog but not installed.
    case notInstalled(id: String)

    // Verification
    case checksumMismatch(file: String, expected: String, actual: String)
    case sizeMismatch(file: String, expected: Int64, actual: Int64)
    /// The file does not start with the header its format requires (e.g. `GGUF` magic).
    case invalidHeader(file: String, expected: String)
    /// A file the entry lists is absent from the installed model.
    case missingFile(file: String)

    // Transfer
    case http(status: Int, url: String)
    case connection(url: String, reason: String)
    /// No byte arrived for `seconds` while a response was expected.
    case stalled(url: String, seconds: Double)
    case tooManyRedirects(url: String)
    /// A 206 whose Content-Range does not start where we asked.
    case badContentRange(url: String, header: String)
    case insufficientStorage(needed: Int64, free: Int64)
    case cancelled

    // Filesystem
    case io(path: String, errno: Int32)
    case lockFailed(path: String, errno: Int32)
}

extension StoreError {
    /// Whether a retry with backoff may succeed: connection trouble, stalls, 5xx and 429.
    var isTransient: Bool {
        switch self {
        case .connection, .stalled, .badContentRange: return true
        case .http(let status, _): return status == 429 || (500...599).contains(status)
        default: return false
        }
    }
}

extension StoreError: CustomStringConvertible {
    package var description: String {
        switch self {
        case .catalogMissingColumn(let name): return "catalog: no column '\(name)'"
        case .catalogBadField(let line, let column, let value): return "catalog line \(line): bad \(column) '\(value)'"
        case .catalogBadRow(let line, let fields, let expected): return "catalog line \(line): \(fields) fields, expected \(expected)"
        case .catalogConflict(let id, let detail): return "catalog entry \(id): \(detail)"
        case .manifestInvalid(let path, let detail): return "\(path): \(detail)"
        case .unknownOp(let name): return "unknown op '\(name)'"
        case .invalidModelId(let id): return "invalid model id '\(id)'"
        case .invalidPath(let path): return "path would escape the model store: '\(path)'"
        case .unsupportedURL(let url): return "unsupported URL '\(url)'"
        case .noHubEndpoint(let repo): return "cannot download '\(repo)': set HF_ENDPOINT to the Hugging Face base URL"
        case .unknownModel(let id): return "unknown model '\(id)'"
        case .notInstalled(let id): return "model '\(id)' is not installed"
        case .checksumMismatch(let file, let expected, let actual): return "\(file): sha256 \(actual), expected \(expected)"
        case .sizeMismatch(let file, let expected, let actual): return "\(file): \(actual) bytes, expected \(expected)"
        case .invalidHeader(let file, let expected): return "\(file): does not start with \(expected)"
        case .missingFile(let file): return "\(file): missing"
        case .http(let status, let url): return "HTTP \(status) from \(url)"
        case .connection(let url, let reason): return "connection to \(url) failed: \(reason)"
        case .stalled(let url, let seconds): return "no data from \(url) for \(seconds) s"
        case .tooManyRedirects(let url): return "too many redirects from \(url)"
        case .badContentRange(let url, let header): return "bad Content-Range '\(header)' from \(url)"
        case .insufficientStorage(let needed, let free): return "needs \(needed) bytes, \(free) free"
        case .cancelled: return "cancelled"
        case .io(let path, let errno): return "\(path): \(String(cString: strerror(errno)))"
        case .lockFailed(let path, let errno): return "cannot lock \(path): \(String(cString: strerror(errno)))"
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
