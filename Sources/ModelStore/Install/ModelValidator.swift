import Foundation

/// Result of validating one installed model.
package struct ValidationReport: Sendable, Equatable {
    package var id: String
    /// nil when the model is whole and correct.
    package var problem: StoreError?
    /// True when the metadata snapshot was unchanged and the last result was reused.
    package var reusedCache: Bool
    /// Bytes hashed to reach the result (0 when the cache was reused).
    package var bytesHashed: Int64
    package var isValid: Bool { problem == nil }
}

/// Checks an installed model's files: presence, sizes, a header check per format, then SHA-256.
package enum ModelValidator {
    /// Validates `entry` in `directory`; returns the problem found (nil if none) and bytes hashed.
    package static func check(_ entry: CatalogEntry, in directory: String) -> (StoreError?, Int64) {
        // Cheap checks over every file first, so a missing or short file fails without hashing.
        for file in entry.files {
            let path = directory + "/" + file.name
            guard let size = FileSystem.fileSize(path) else { return (.missingFile(file: file.name), 0) }
            if let expected = file.bytes, expected != size { return (.sizeMismatch(file: file.name, expected: expected, actual: size), 0) }
            if let problem = headerProblem(file.name, path: path, size: size) { return (problem, 0) }
        }
        var hashed: Int64 = 0
        for file in entry.files {
            guard let expected = file.sha256 else { continue }
            let path = directory + "/" + file.name
            do {
                let actual = try FileSystem.sha256(of: path)
                hashed += FileSystem.fileSize(path) ?? 0
                if actual != expected { return (.checksumMismatch(file: file.name, expected: expected, actual: actual), hashed) }
            } catch {
                return (error, hashed)
            }
        }
        return (nil, hashed)
    }

    // Header layouts checked:
    //   .gguf         bytes 0..<4 = "GGUF"
    //   .safetensors  bytes 0..<8 = u64 LE header length N, 8 + N <= file size, byte 8 = "{"
    private static func headerProblem(_ name: String, path: String, size: Int64) -> StoreError? {
        if name.hasSuffix(".gguf") {
            let head = firstBytes(path, count: 4)
            return head == Array("GGUF".utf8) ? nil : .invalidHeader(file: name, expected: "GGUF magic")
        }
        if name.hasSuffix(".safetensors") {
            let head = firstBytes(path, count: 9)
            guard head.count == 9 else { return .invalidHeader(file: name, expected: "safetensors header") }
            let length = head[0..<8].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
            guard length < UInt64(size), 8 + Int64(length) <= size, head[8] == UInt8(ascii: "{") else {
                return .invalidHeader(file: name, expected: "safetensors header")
            }
        }
        return nil
    }

    private static func firstBytes(_ path: String, count: Int) -> [UInt8] {
        var bytes = [UInt8]()
        try? FileSystem.read(path, count: Int64(count)) { bytes += $0 }
        return bytes
    }
}
