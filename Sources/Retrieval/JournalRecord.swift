import ModelStore

/// One document as the journal stores it: the full text (chunks and vectors can always be
/// rebuilt from it), metadata, chunk spans, and the chunk vectors stamped with their backend.
struct StoredDocument: Sendable, Equatable {
    var id: String
    var text: String
    var metadata: [String: String]
    /// Each chunk's span in `text`, as offsets into its Unicode scalars.
    var chunks: [Range<Int>]
    /// `BackendStamp` of the vectors; 0 when the document has none (lexical, or waiting to be
    /// embedded).
    var stamp: UInt64
    var dimension: Int
    /// (chunks.count, dimension) row-major, or empty when `stamp` is 0.
    var vectors: [Float]
}

/// A change to the index, as appended to the journal.
enum JournalRecord: Sendable, Equatable {
    /// Vectors from now on belong to this backend (nil: none); every earlier vector with another
    /// stamp stops counting.
    case backend(BackendIdentity?)
    /// Adds or replaces a document.
    case put(StoredDocument)
    /// Removes a document.
    case remove(id: String)

    var typeByte: UInt8 {
        switch self {
        case .backend: 1
        case .put: 2
        case .remove: 3
        }
    }

    /// The payload (the bytes after the type byte).
    func payload() -> [UInt8] {
        var w = ByteWriter()
        switch self {
        case .backend(let identity):
            w.u8(identity == nil ? 0 : 1)
            if let identity {
                w.string(identity.modelId)
                w.string(identity.revision)
                w.string(identity.preprocessing)
                w.u32(UInt32(identity.dimension))
            }
        case .put(let d):
            w = ByteWriter(capacity: d.text.utf8.count + d.vectors.count * 4 + 64)
            w.string(d.id)
            w.string(d.text)
            w.u32(UInt32(d.metadata.count))
            for key in d.metadata.keys.sorted() {
                w.string(key)
                w.string(d.metadata[key]!)
            }
            w.u32(UInt32(d.chunks.count))
            for c in d.chunks {
                w.u32(UInt32(c.lowerBound))
                w.u32(UInt32(c.upperBound))
            }
            w.u64(d.stamp)
            w.u32(UInt32(d.dimension))
            d.vectors.withUnsafeBufferPointer { w.floats($0) }
        case .remove(let id):
            w.string(id)
        }
        return w.bytes
    }

    /// Decodes a payload of record type `type`.
    static func decode(type: UInt8, payload: UnsafeRawBufferPointer) throws(ByteReader.Malformed) -> JournalRecord {
        var r = ByteReader(payload)
        let record: JournalRecord
        switch type {
        case 1:
            if try r.u8("backend present") == 0 {
                record = .backend(nil)
            } else {
                let modelId = try r.string("backend model id"), revision = try r.string("backend revision")
                let preprocessing = try r.string("backend preprocessing")
                let dimension = Int(try r.u32("backend dimension"))
                // No embedding model has more dimensions; a larger value is damage, not a backend.
                guard (1...65_536).contains(dimension) else { throw ByteReader.Malformed(field: "backend dimension", offset: r.offset - 4) }
                record = .backend(BackendIdentity(modelId: modelId, revision: revision, preprocessing: preprocessing, dimension: dimension))
            }
        case 2:
            let id = try r.string("document id")
            let text = try r.string("document text")
            var metadata: [String: String] = [:]
            for _ in 0..<(try r.count("metadata count", minItemBytes: 8)) {
                let key = try r.string("metadata key")
                metadata[key] = try r.string("metadata value")
            }
            let scalarCount = text.unicodeScalars.count
            var chunks: [Range<Int>] = []
            for _ in 0..<(try r.count("chunk count", minItemBytes: 8)) {
                let start = Int(try r.u32("chunk start")), end = Int(try r.u32("chunk end"))
                guard start <= end, end <= scalarCount else { throw ByteReader.Malformed(field: "chunk span", offset: r.offset - 8) }
                chunks.append(start..<end)
            }
            let stamp = try r.u64("vector stamp")
            let dimension = Int(try r.u32("vector dimension"))
            var vectors: [Float] = []
            if stamp != 0 {
                guard dimension > 0, chunks.count * dimension * 4 <= r.remaining else {
                    throw ByteReader.Malformed(field: "vectors", offset: r.offset)
                }
                vectors.reserveCapacity(chunks.count * dimension)
                try r.floats(chunks.count * dimension, "vectors", into: &vectors)
            }
            record = .put(StoredDocument(id: id, text: text, metadata: metadata, chunks: chunks,
                                         stamp: stamp, dimension: dimension, vectors: vectors))
        case 3:
            record = .remove(id: try r.string("removed document id"))
        default:
            throw ByteReader.Malformed(field: "record type \(type)", offset: 0)
        }
        guard r.remaining == 0 else { throw ByteReader.Malformed(field: "trailing bytes", offset: r.offset) }
        return record
    }
}

/// The 64-bit stamp a backend's vectors carry in the journal: the first 8 bytes of the SHA-256
/// of its identity fields (never 0, which means "no vectors").
enum BackendStamp {
    static func of(_ identity: BackendIdentity) -> UInt64 {
        var hash = SHA256()
        for field in [identity.modelId, identity.revision, identity.preprocessing, String(identity.dimension)] {
            hash.update(Array(field.utf8) + [0])
        }
        let bytes = hash.finalize().bytes
        let value = bytes.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return value == 0 ? 1 : value
    }
}
