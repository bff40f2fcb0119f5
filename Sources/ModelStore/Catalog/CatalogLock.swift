// models.lock: UTF-8 text, one header line then one line per model file, fields separated by a
// TAB, no quoting (fields never contain TAB or newline), optional trailing CR. Columns are found
// by header name, so extra columns are fine. Rows sharing an `id` are one model; their files keep
// row order. Columns read:
//   id        model id                        repo         Hugging Face repo (`owner/name`)
//   file      file name in the model dir      revision     pinned revision (commit, tag or branch)
//   bytes     decimal byte count              variant      last layout level
//   sha256    64 lowercase hex digits         source_path  path inside the repo
//   license   free text

/// One model as the lock file pins it (the lock does not say what kind of model it is).
package struct LockedModel: Sendable, Equatable {
    package var id: String
    package var license: String
    package var repo: String
    package var revision: String
    package var variant: String
    package var files: [ModelFile]

    /// The catalog entry for this pinned model, given its kind.
    package func entry(kind: ModelKind) -> CatalogEntry {
        .huggingFace(id: id, kind: kind, license: license, repo: repo, revision: revision, variant: variant, files: files)
    }
}

/// Parser for the project's pinned model list.
package enum CatalogLock {
    private static let required = ["id", "file", "bytes", "sha256", "license", "repo", "revision", "variant", "source_path"]

    package static func parse(_ text: String) throws(StoreError) -> [LockedModel] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix("\r") ? String(line.dropLast()) : String(line)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let header = lines.first else { throw .catalogMissingColumn(name: "id") }
        let names = header.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        var column = [String: Int]()
        for name in required {
            guard let index = names.firstIndex(of: name) else { throw .catalogMissingColumn(name: name) }
            column[name] = index
        }
        var models = [LockedModel]()
        var indexById = [String: Int]()
        for (offset, line) in lines.enumerated().dropFirst() {
            let lineNumber = offset + 1
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == names.count else {
                throw .catalogBadRow(line: lineNumber, fields: fields.count, expected: names.count)
            }
            func field(_ name: String) -> String { fields[column[name]!] }
            let file = try parseFile(fields: field, line: lineNumber)
            let model = LockedModel(id: field("id"), license: field("license"), repo: field("repo"),
                                    revision: field("revision"), variant: field("variant"), files: [file])
            if let index = indexById[model.id] {
                let known = models[index]
                guard known.repo == model.repo, known.revision == model.revision,
                      known.variant == model.variant, known.license == model.license else {
                    throw .catalogConflict(id: model.id, detail: "line \(lineNumber) disagrees with earlier rows")
                }
                models[index].files.append(file)
            } else {
                indexById[model.id] = models.count
                models.append(model)
            }
        }
        for model in models { try model.entry(kind: .llm).checkNames() }
        return models
    }

    private static func parseFile(fields field: (String) -> String, line: Int) throws(StoreError) -> ModelFile {
        let bytesText = field("bytes")
        guard let bytes = Int64(bytesText), bytes >= 0 else {
            throw .catalogBadField(line: line, column: "bytes", value: bytesText)
        }
        let sha = field("sha256")
        guard isSHA256Hex(sha) else { throw .catalogBadField(line: line, column: "sha256", value: sha) }
        let source = field("source_path")
        guard !source.isEmpty else { throw .catalogBadField(line: line, column: "source_path", value: source) }
        return ModelFile(name: field("file"), bytes: bytes, sha256: sha, sourcePath: source)
    }

    /// 64 lowercase hex digits.
    package static func isSHA256Hex(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 64 && bytes.allSatisfy {
            ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
        }
    }
}
