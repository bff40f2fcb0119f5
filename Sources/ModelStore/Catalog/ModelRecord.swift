import Foundation

/// What the store remembers about an installed model, kept in `<root>/.meta/...json` so every
/// process (each CLI run is one) shares it: last use, and the validation cache.
package struct ModelRecord: Sendable, Equatable, Codable {
    package var id: String
    package var installedAt: Date?
    package var lastUsed: Date?
    /// Snapshot taken right after the model last validated; nil when it never has.
    package var validatedSnapshot: DirectorySnapshot?
    /// Fingerprint of the entry (file names, sizes, digests) the snapshot was validated against.
    package var validatedFingerprint: String?

    package init(id: String) { self.id = id }

    package static func load(_ path: String) -> ModelRecord? {
        guard let data = FileSystem.readData(path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(ModelRecord.self, from: data)
    }

    package func save(_ path: String) throws(StoreError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else { throw .io(path: path, errno: EINVAL) }
        try FileSystem.makeDirectories((path as NSString).deletingLastPathComponent)
        try FileSystem.writeAtomically(data, to: path)
    }
}

extension CatalogEntry {
    /// Changes whenever what validation checks changes, so a cached result never outlives it.
    package var fingerprint: String {
        let text = files.map { "\($0.name)\t\($0.bytes.map(String.init) ?? "?")\t\($0.sha256 ?? "?")" }.joined(separator: "\n")
        return SHA256.hex(of: Array(text.utf8))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
