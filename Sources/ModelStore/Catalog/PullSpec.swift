import Foundation

/// What `ondevice models pull` accepts: a catalog id, `hf:OWNER/REPO[@REVISION]/FILE`, or a URL
/// (which needs `--sha256` and `--id`).
package enum PullSpec: Sendable, Equatable {
    case catalog(id: String)
    case huggingFace(id: String, repo: String, revision: String, file: String, sha256: String?)
    case url(id: String, url: URL, sha256: String)

    package static func parse(_ text: String, sha256: String? = nil, id: String? = nil) throws(StoreError) -> PullSpec {
        if let sha256, !CatalogLock.isSHA256Hex(sha256.lowercased()) {
            throw .checksumMismatch(file: text, expected: "64 hex digits", actual: sha256)
        }
        let digest = sha256?.lowercased()
        if text.hasPrefix("hf:") {
            let parts = text.dropFirst(3).split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, !parts[2].isEmpty else { throw .invalidPath(path: text) }
            let nameAndRevision = parts[1].split(separator: "@", maxSplits: 1).map(String.init)
            guard let name = nameAndRevision.first else { throw .invalidPath(path: text) }
            let repo = parts[0] + "/" + name
            let revision = nameAndRevision.count == 2 ? nameAndRevision[1] : "main"
            try SafeName.checkRepo(repo)
            try SafeName.checkLayoutComponent(revision)
            try SafeName.checkRelativeFile(parts[2])
            let modelId = id ?? derivedId(from: parts[2])
            try SafeName.checkModelId(modelId)
            return .huggingFace(id: modelId, repo: repo, revision: revision, file: parts[2], sha256: digest)
        }
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            guard let url = URL(string: text), url.host != nil else { throw .unsupportedURL(url: text) }
            guard let id else { throw .invalidModelId(id: "") }
            guard let digest else { throw .checksumMismatch(file: text, expected: "a --sha256 value", actual: "none") }
            try SafeName.checkModelId(id)
            return .url(id: id, url: url, sha256: digest)
        }
        try SafeName.checkModelId(text)
        return .catalog(id: text)
    }

    /// `Org-Model.Q4_0.gguf` → `org-model.q4_0`: the file's base name, lowercased, odd bytes to `-`.
    private static func derivedId(from file: String) -> String {
        var base = (file as NSString).lastPathComponent
        if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = String(base[..<dot]) }
        let mapped = base.lowercased().unicodeScalars.map { scalar -> Character in
            let plain = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "." || scalar == "_" || scalar == "-"
            return plain ? Character(scalar) : "-"
        }
        let id = String(mapped).trimmingCharacters(in: CharacterSet(charactersIn: ".-"))
        return id.isEmpty ? "model" : id
    }
}
