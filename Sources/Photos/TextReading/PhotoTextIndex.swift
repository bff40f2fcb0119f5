import Foundation

/// The text read in each photo (OCR), on disk beside the descriptor caches, and a lexical search
/// over it. An entry stays valid while its file's size and mtime are unchanged, so indexing a
/// folder again reads only new or changed photos.
///
/// File: `<directory>/photo-text.json`, JSON {"reader": String, "entries": {path: {stamp, text}}},
/// written atomically (temporary file, fsync, rename). A file that does not parse, or that was
/// written by another reader, is ignored and the photos are read again.
package struct PhotoTextIndex: Sendable {
    /// Names the models whose text the entries hold; a change of models invalidates them.
    package static let readerName = "ppocr-v4 det+cls+rec (RapidOCR 1.4.4 pipeline)"

    package struct Entry: Sendable, Equatable, Codable {
        package let stamp: FileStamp
        /// The kept lines' texts in reading order, one per line.
        package let text: String
    }

    private struct Payload: Codable {
        let reader: String
        let entries: [String: Entry]
    }

    package let file: String
    package private(set) var entries: [String: Entry] = [:]

    package init(directory: String) {
        file = (directory as NSString).appendingPathComponent("photo-text.json")
        guard let data = FileManager.default.contents(atPath: file),
              let payload = try? JSONDecoder().decode(Payload.self, from: data), payload.reader == Self.readerName else { return }
        entries = payload.entries
    }

    /// Reads the text of every photo in `paths` whose entry is missing or stale; returns the
    /// number read and the photos that failed. `progress(done, total)` counts photos read.
    package mutating func update(_ paths: [String], reader: TextReader, threads: Int,
                                 progress: ((Int, Int) -> Void)? = nil) -> (read: Int, failures: [PhotosError]) {
        let stale = paths.filter { path in
            guard let stamp = FileStamp.of(path) else { return true }
            return entries[path]?.stamp != stamp
        }
        var failures: [PhotosError] = []
        for (done, path) in stale.enumerated() {
            progress?(done, stale.count)
            guard let stamp = FileStamp.of(path) else { failures.append(.image(.unreadable(file: path, reason: "cannot stat"))); continue }
            do {
                let lines = try reader.read(fileAt: path, threads: threads).filter(\.kept)
                entries[path] = Entry(stamp: stamp, text: lines.map(\.text).joined(separator: "\n"))
            } catch {
                failures.append(error)
            }
        }
        progress?(stale.count, stale.count)
        return (stale.count - failures.count, failures)
    }

    package func save() throws(PhotosError) {
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            data = try encoder.encode(Payload(reader: Self.readerName, entries: entries))
        } catch { throw .cache(path: file, reason: "encode: \(error)") }
        try AtomicFile.write([UInt8](data), to: file)
    }

    /// Lower-cased runs of letters and digits: the words a query is matched on.
    package static func terms(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    /// One photo whose text matches a query.
    package struct Hit: Sendable, Equatable {
        package let path: String
        package let score: Double
        package let text: String
    }

    /// Photos whose text shares words with `query`, best first: score = Σ idf of the query words
    /// a photo's text contains (idf = ln(1 + (N - df + 0.5) / (df + 0.5)) over the searched
    /// photos), plus 1 when the whole query appears as a phrase. Only photos under `directory`
    /// (when given) are searched; photos matching no word are not returned.
    package func search(_ query: String, under directory: String? = nil, k: Int = 10) -> [Hit] {
        let prefix = directory.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        let documents = entries.filter { prefix == nil || $0.key.hasPrefix(prefix!) }
        let words = Array(Set(Self.terms(query)))
        guard !words.isEmpty, !documents.isEmpty else { return [] }
        let termSets = documents.mapValues { Set(Self.terms($0.text)) }
        let n = Double(documents.count)
        var idf: [String: Double] = [:]
        for word in words {
            let df = Double(termSets.values.filter { $0.contains(word) }.count)
            idf[word] = Foundation.log(1 + (n - df + 0.5) / (df + 0.5))
        }
        let phrase = Self.terms(query).joined(separator: " ")
        var hits: [Hit] = []
        for (path, entry) in documents {
            let present = words.filter { termSets[path]!.contains($0) }
            guard !present.isEmpty else { continue }
            var score = present.reduce(0) { $0 + idf[$1]! }
            if Self.terms(entry.text).joined(separator: " ").contains(phrase) { score += 1 }
            hits.append(Hit(path: path, score: score, text: entry.text))
        }
        return Array(hits.sorted { ($0.score, $1.path) > ($1.score, $0.path) }.prefix(k))
    }
}
