import Foundation
import OnDevice

// The JSON shapes `ondevice models … --json` and `ondevice prefetch --json` print: snake_case
// keys, sizes in bytes, times in seconds since 1970, absent values as null.

extension ModelInfo.Source {
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

extension ModelInfo {
    /// The catalog entry: identity, source and files.
    var entryJSON: [String: Any] {
        var object: [String: Any] = [
            "id": id, "kind": kind.rawValue, "license": license, "source": source.json,
            "pinned": isPinned, "total_bytes": totalBytes ?? NSNull(),
            "files": files.map { file -> [String: Any] in
                ["name": file.name, "bytes": file.bytes ?? NSNull(), "sha256": file.sha256 ?? NSNull(), "source_path": file.sourcePath]
            },
            "directory": directory,
        ]
        if kind == .lora { object["base_model"] = baseModel ?? NSNull() }
        return object
    }

    /// The entry with where it stands here.
    var json: [String: Any] {
        var object = entryJSON
        object["state"] = state.rawValue
        object["bytes_on_disk"] = bytesOnDisk
        object["last_used"] = lastUsed.map { $0.timeIntervalSince1970 } ?? NSNull()
        return object
    }
}

extension DownloadProgress {
    var json: [String: Any] {
        ["event": "progress", "id": model, "received_bytes": receivedBytes, "total_bytes": totalBytes ?? NSNull(),
         "bytes_per_second": bytesPerSecond, "eta_seconds": etaSeconds ?? NSNull()]
    }
}

/// Binary-unit text for a byte count ("?" when unknown): `512 B`, `1.5 KiB`, `97.8 MiB`.
func byteText(_ bytes: Int64?) -> String {
    guard let bytes else { return "?" }
    let units = ["B", "KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes), unit = 0
    while abs(value) >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
    return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
}

func byteText(_ bytes: Int) -> String { byteText(Int64(bytes)) }
