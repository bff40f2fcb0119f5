import Foundation
import Platform

/// What one download attempt learned from response heads. Written by the transport thread,
/// read after the request returns; never touched by two threads at once. The fields sit behind
/// an uncontended lock so that hand-over is an ordering ThreadSanitizer sees (it does not see
/// the one a continuation's resumption gives across the Swift runtime, and reported the
/// `location` the async attempt reads after the transport thread wrote it).
@dynamicMemberLookup
final class ResponseNotes: Sendable {
    struct Fields {
        var location: String?
        var retryAfter: Double?
        var linkedSHA256: String?
        var linkedSize: Int64?
        var total: Int64?
        var rangeNotSatisfiable = false
    }
    private let fields = Locked(Fields())

    /// `notes.location` and the rest, each read or written under the lock.
    subscript<Value>(dynamicMember field: WritableKeyPath<Fields, Value>) -> Value {
        get { fields.withLock { $0[keyPath: field] } }
        set { fields.withLock { $0[keyPath: field] = newValue } }
    }

    /// Keeps a strong ETag beside the partial file for the next resume's `If-Range`.
    func record(etag: String?, for file: PartialFile) {
        guard let etag, !etag.hasPrefix("W/") else { FileSystem.removeTree(file.path + ".etag"); return }
        try? FileSystem.writeAtomically(Data(etag.utf8), to: file.path + ".etag")
    }

    static func unquote(_ value: String) -> String {
        var text = value.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("W/") { text.removeFirst(2) }
        if text.hasPrefix("\"") && text.hasSuffix("\"") && text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        return text
    }

    // `Content-Range: bytes START-END/TOTAL` (TOTAL may be `*`) → (START, TOTAL?).
    static func parseContentRange(_ header: String) -> (Int64, Int64?)? {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("bytes ") else { return nil }
        let parts = text.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let dash = parts[0].firstIndex(of: "-"), let start = Int64(parts[0][..<dash]) else { return nil }
        return (start, Int64(parts[1]))
    }

    // `Content-Range: bytes */TOTAL` on a 416.
    static func parseUnsatisfiedRange(_ header: String) -> Int64? {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("bytes */") else { return nil }
        return Int64(text.dropFirst(8))
    }
}
