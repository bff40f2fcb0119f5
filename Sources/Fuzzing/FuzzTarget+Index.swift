import Retrieval

extension FuzzTarget {
    static let indexTargets: [FuzzTarget] = [
        FuzzTarget("index-journal", "a search index's journal replayed and searched (vector matrix, HNSW, BM25); "
                   + "first byte even: the rest are records sealed with valid checksums, odd: the rest as raw journal bytes",
                   maxLength: 16 * 1024) { bytes in
            guard let mode = bytes.first else { return }
            let rest = UnsafeRawBufferPointer(rebasing: bytes.dropFirst())
            if mode & 1 == 0 {
                let sealed = IndexJournal.sealing(records: rest)
                sealed.withUnsafeBytes { consume(try? IndexJournal.verify($0, path: "fuzz.journal")) }
            } else {
                consume(try? IndexJournal.verify(rest, path: "fuzz.journal"))
            }
        },
    ]
}
