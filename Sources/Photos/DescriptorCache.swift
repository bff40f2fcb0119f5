import Foundation
import Imaging
import ModelStore
import Platform
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Size and modification time of a file: a cached result is reused only while both match.
package struct FileStamp: Sendable, Equatable, Codable {
    package let size: Int64
    package let modifiedNanos: Int64

    package init(size: Int64, modifiedNanos: Int64) {
        self.size = size
        self.modifiedNanos = modifiedNanos
    }

    /// The stamp of `path`, nil when it cannot be stat'ed.
    package static func of(_ path: String) -> FileStamp? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileStamp(size: Int64(st.st_size), modifiedNanos: POSIX.modificationNanoseconds(st))
    }
}

/// What one decode of a photo yields, kept so a second scan need not decode it again.
package struct PhotoFacts: Sendable, Equatable, Codable {
    package let stamp: FileStamp
    package let descriptor: PhotoDescriptor
    package let quality: FrameQuality
    /// EXIF DateTimeOriginal text and its seconds (see `CaptureTime`), when present.
    package let captureText: String?
    package let captureSeconds: Double?
    package let width: Int
    package let height: Int
}

/// Descriptors and frame facts of one backend, on disk, keyed by absolute path and valid while
/// the file's size and mtime are unchanged.
///
/// File layout (`<directory>/photos-<hash of identity>.odpc`):
///   0   8 bytes magic "ODPHOTO1"
///   8   u64 little-endian payload length L
///   16  L bytes payload: JSON {"identity": DescriptorIdentity, "entries": {path: PhotoFacts}}
///   16+L 32 bytes SHA-256 of the payload
/// Crash safety: `save` writes a temporary file in the same directory, fsyncs it, renames it over
/// the old one and fsyncs the directory, so a reader sees the old or the new file, never a mix.
/// A torn or foreign file fails the length, digest or identity check and is ignored (the photos
/// are decoded again), never trusted.
package struct DescriptorCache: Sendable {
    package let directory: String
    package let identity: DescriptorIdentity
    package private(set) var entries: [String: PhotoFacts] = [:]
    /// Why the file on disk was not used, when it existed but was unusable.
    package private(set) var loadProblem: String?

    static let magic = Array("ODPHOTO1".utf8)

    private struct Payload: Codable {
        let identity: DescriptorIdentity
        let entries: [String: PhotoFacts]
    }

    package init(directory: String, identity: DescriptorIdentity) {
        self.directory = directory
        self.identity = identity
        guard let bytes = FileManager.default.contents(atPath: file) else { return }
        switch Self.parse([UInt8](bytes), identity: identity) {
        case .success(let entries): self.entries = entries
        case .failure(let problem): loadProblem = problem.reason
        }
    }

    package var file: String {
        let data = (try? JSONEncoder.sorted.encode(identity)) ?? Data()
        return (directory as NSString).appendingPathComponent("photos-\(SHA256.hex(of: [UInt8](data)).prefix(16)).odpc")
    }

    /// The cached facts of `path` if its stamp still matches.
    package func lookup(_ path: String, stamp: FileStamp) -> PhotoFacts? {
        guard let facts = entries[path], facts.stamp == stamp, facts.descriptor.identity == identity else { return nil }
        return facts
    }

    package mutating func store(_ facts: PhotoFacts, for path: String) {
        precondition(facts.descriptor.identity == identity, "DescriptorCache: descriptor of another backend")
        entries[path] = facts
    }

    /// Writes the cache atomically (see the type's comment).
    package func save() throws(PhotosError) {
        let payload: [UInt8]
        do { payload = [UInt8](try JSONEncoder.sorted.encode(Payload(identity: identity, entries: entries))) } catch {
            throw .cache(path: file, reason: "encoding: \(error)")
        }
        var bytes = Self.magic
        withUnsafeBytes(of: UInt64(payload.count).littleEndian) { bytes += $0 }
        bytes += payload
        bytes += SHA256.hex(of: payload).hexBytes
        try AtomicFile.write(bytes, to: file)
    }

    struct ParseProblem: Error { let reason: String }

    static func parse(_ bytes: [UInt8], identity: DescriptorIdentity) -> Result<[String: PhotoFacts], ParseProblem> {
        guard bytes.count >= 48, bytes.prefix(8).elementsEqual(magic) else { return .failure(ParseProblem(reason: "not a cache file")) }
        let length = bytes[8..<16].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard length == UInt64(bytes.count - 48) else { return .failure(ParseProblem(reason: "torn: length \(length), file \(bytes.count)")) }
        let payload = Array(bytes[16..<(bytes.count - 32)])
        guard SHA256.hex(of: payload).hexBytes.elementsEqual(bytes.suffix(32)) else {
            return .failure(ParseProblem(reason: "digest mismatch"))
        }
        guard let decoded = try? JSONDecoder().decode(Payload.self, from: Data(payload)) else {
            return .failure(ParseProblem(reason: "unreadable payload"))
        }
        guard decoded.identity == identity else { return .failure(ParseProblem(reason: "made by \(decoded.identity)")) }
        return .success(decoded.entries)
    }
}

/// Replaces a file so readers see the old or the new content, never a mix.
enum AtomicFile {
    static func write(_ bytes: [UInt8], to path: String) throws(PhotosError) {
        let directory = (path as NSString).deletingLastPathComponent
        do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
            throw .cache(path: path, reason: "cannot create \(directory): \(error.localizedDescription)")
        }
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw .cache(path: path, reason: "open \(temporary): \(String(cString: strerror(errno)))") }
        var written = 0
        let ok = bytes.withUnsafeBytes { raw -> Bool in
            while written < raw.count {
                let n = POSIX.write(fd, raw.baseAddress! + written, raw.count - written)
                if n <= 0 { return false }
                written += n
            }
            return fsync(fd) == 0
        }
        let reason = String(cString: strerror(errno))
        close(fd)
        guard ok, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw .cache(path: path, reason: "write: \(reason)")
        }
        let dirFD = open(directory, O_RDONLY)
        if dirFD >= 0 {
            fsync(dirFD)  // makes the rename itself durable
            close(dirFD)
        }
    }
}

extension JSONEncoder {
    /// Sorted keys: the same identity always hashes to the same file name.
    static var sorted: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }
}

extension String {
    /// The bytes of a hex string (two digits each).
    var hexBytes: [UInt8] {
        var out: [UInt8] = []
        var high: UInt8?
        for c in utf8 {
            let v: UInt8 = c >= 97 ? c - 87 : c >= 65 ? c - 55 : c - 48
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return out
    }
}
