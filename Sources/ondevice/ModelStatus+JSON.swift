import Foundation
import ModelStore
import Runtime

// The JSON shapes `ondevice models … --json` and `ondevice prefetch --json` print: snake_case
// keys, sizes in bytes, times in seconds since 1970, absent values as null.

extension ModelSource {
    var json: [String: Any] {
        switch self {
        case .huggingFace(let repo, let revision): return ["type": "huggingface", "repo": repo, "revision": revision]
        case .url: return ["type": "url"]
        case .local(let path): return ["type": "local", "path": path]
        }
    }

    /// One line for tables: `hf:org/repo@rev`, `url`, `local:/path`.
    var text: String {
        switch self {
        case .huggingFace(let repo, let revision): return "hf:\(repo)@\(revision)"
        case .url: return "url"
        case .local(let path): return "local:\(path)"
        }
    }
}

extension CatalogEntry {
    /// Sum of the file sizes, or nil while any is unknown (a custom model not pulled yet).
    var totalBytes: Int64? { files.allSatisfy { $0.bytes != nil } ? knownBytes : nil }

    var json: [String: Any] {
        var object: [String: Any] = [
            "id": id, "kind": kind.rawValue, "license": license, "source": source.json,
            "pinned": Catalog.isPinned(id), "total_bytes": totalBytes ?? NSNull(),
            "files": files.map { file -> [String: Any] in
                ["name": file.name, "bytes": file.bytes ?? NSNull(), "sha256": file.sha256 ?? NSNull(),
                 "source_path": file.sourcePath]
            },
        ]
        if kind == .lora { object["base_model"] = baseModel ?? NSNull() }
        return object
    }
}

extension ModelStatus {
    var json: [String: Any] {
        var object = entry.json
        object["state"] = state.rawValue
        object["bytes_on_disk"] = bytesOnDisk
        object["last_used"] = lastUsed.map { $0.timeIntervalSince1970 } ?? NSNull()
        object["directory"] = directory
        return object
    }
}

extension InstalledModel {
    var json: [String: Any] {
        var object = entry.json
        object["directory"] = directory
        return object
    }
}

extension PullProgress {
    var json: [String: Any] {
        ["event": "progress", "id": id, "received_bytes": receivedBytes, "total_bytes": totalBytes ?? NSNull(),
         "bytes_per_second": bytesPerSecond, "eta_seconds": etaSeconds ?? NSNull()]
    }
}

/// Binary-unit text for a byte count ("?" when unknown), via the runtime's `ByteCount`.
func byteText(_ bytes: Int64?) -> String { bytes.map { ByteCount($0).description } ?? "?" }
