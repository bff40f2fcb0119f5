/// Checking journal bytes without an index around them.
extension IndexJournal {
    /// What `verify` found in a journal.
    package struct Summary: Sendable, Equatable {
        package var documents = 0
        package var chunks = 0
        package var vectors = 0
        package var tornBytes = 0

        package init(documents: Int = 0, chunks: Int = 0, vectors: Int = 0, tornBytes: Int = 0) {
            self.documents = documents
            self.chunks = chunks
            self.vectors = vectors
            self.tornBytes = tornBytes
        }
    }

    /// Replays `bytes` as a journal, builds every search structure an index would (the vector
    /// matrix, its HNSW graph, the BM25 index) and runs one query through each: whatever a
    /// damaged or hostile journal holds, this either throws `.corruptIndex` or completes.
    /// For `ondevice-fuzz index-journal` and the index tests.
    package static func verify(_ bytes: UnsafeRawBufferPointer, path: String) throws(RetrievalError) -> Summary {
        let replay = try parse(bytes, path: path)
        var contents = IndexContents()
        for record in replay.records { contents.apply(record) }
        var structures = SearchStructures()
        structures.syncVectors(contents)
        structures.syncLexical(contents)
        var summary = Summary(documents: contents.documents.count, chunks: contents.chunkCount,
                              vectors: structures.liveVectorCount, tornBytes: replay.tornBytes)
        _ = structures.lexical.search("the index", k: 3)
        if let matrix = structures.matrix, matrix.count > 0 {
            let dimension = matrix.dimension
            var query = [Float](repeating: 0, count: dimension)
            query[0] = 1
            _ = structures.exact(query, k: 3, threads: 1)
            var parameters = HNSWParameters()
            parameters.efConstruction = 16
            structures.buildGraph(parameters)
            _ = structures.approximate(query, k: 3)
            summary.vectors = structures.liveVectorCount
        }
        return summary
    }

    /// `bytes` after a valid header, with each record's checksum recomputed (the lengths as
    /// given, the last record cut to what is there): mutated journals then reach record
    /// decoding and replay instead of stopping at a checksum. For the fuzz target.
    package static func sealing(records bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = header()
        var offset = 0
        while offset + recordHeaderSize <= bytes.count {
            let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            let end = min(bytes.count, offset + recordHeaderSize + min(length, bytes.count))
            let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<end])
            var w = ByteWriter(capacity: 8)
            w.u32(UInt32(body.count - 1))
            w.u32(CRC32C.checksum(body))
            out += w.bytes
            out += body
            offset = end
        }
        out += bytes[offset...]
        return out
    }

    /// A small valid journal: a backend of `dimension`, two documents with vectors (one stored
    /// twice, so the first copy is dead), a lexical-only one and a removal. For tests and seeds.
    package static func example(dimension: Int = 4) -> [UInt8] {
        let identity = BackendIdentity(modelId: "example", revision: "1", preprocessing: "v1", dimension: dimension)
        let stamp = BackendStamp.of(identity)
        func document(_ id: String, _ text: String, vectors: Bool) -> StoredDocument {
            let count = text.unicodeScalars.count
            let chunks = [0..<(count / 2), (count / 2)..<count]
            return StoredDocument(id: id, text: text, metadata: ["source": id + ".txt"], chunks: chunks,
                                  stamp: vectors ? stamp : 0, dimension: vectors ? dimension : 0,
                                  vectors: vectors ? (0..<(2 * dimension)).map { Float($0 % 3) - 0.5 } : [])
        }
        let records: [JournalRecord] = [
            .backend(identity), .put(document("a", "the index keeps its journal", vectors: true)),
            .put(document("b", "bakery receipt, two loaves", vectors: true)), .put(document("a", "the index, again", vectors: true)),
            .put(document("c", "lexical only", vectors: false)), .remove(id: "b"),
        ]
        return records.reduce(header()) { $0 + frame($1) }
    }
}
