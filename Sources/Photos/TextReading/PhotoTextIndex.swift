import Foundation
import Imaging

/// The text read in each photo (OCR) and the labels of what it shows (`PhotoLabeller`), on disk
/// beside the descriptor caches, with an embedding vector per photo, and a search over them
/// that ranks by words and, when vectors are there, by meaning too. An entry stays valid while
/// its file's size and mtime are unchanged, so indexing a folder again reads only new or changed
/// photos.
///
/// File: `<directory>/photo-text.json`, JSON {"reader", "labeller"?, "embedder"?, "entries":
/// {path: {stamp, text, labels?, vector?}}}, written atomically (temporary file, fsync, rename).
/// A file that does not parse, or that was written by another reader, is ignored and the photos
/// are read again; labels of another labeller and vectors of another embedder are dropped.
package struct PhotoTextIndex: Sendable {
    /// Names the models whose text the entries hold; a change of models invalidates them.
    package static let readerName = "ppocr-v4 det+cls+rec (RapidOCR 1.4.4 pipeline), spaces restored"

    package struct Entry: Sendable, Equatable, Codable {
        package let stamp: FileStamp
        /// The kept lines' texts in reading order, one per line.
        package var text: String
        /// What the photo shows, most likely first; nil when it was not labelled.
        package var labels: [String]?
        /// The embedding of `document` by the index's embedder; nil until embedded.
        package var vector: [Float]?

        /// What search matches: the text, then the labels, one per line.
        package var document: String {
            ([text] + (labels ?? [])).filter { !$0.isEmpty }.joined(separator: "\n")
        }
    }

    private struct Payload: Codable {
        let reader: String
        var labeller: String?
        var embedder: String?
        let entries: [String: Entry]
    }

    package let file: String
    package private(set) var entries: [String: Entry] = [:]
    /// The labeller whose labels the entries hold (`PhotoLabeller.name`).
    package private(set) var labelledBy: String?
    /// The embedding model whose vectors the entries hold.
    package private(set) var embedder: String?

    package init(directory: String) {
        file = (directory as NSString).appendingPathComponent("photo-text.json")
        guard let data = FileManager.default.contents(atPath: file),
              let payload = try? JSONDecoder().decode(Payload.self, from: data), payload.reader == Self.readerName else { return }
        entries = payload.entries
        labelledBy = payload.labeller
        embedder = payload.embedder
    }

    /// Reads the text of every photo in `paths` whose entry is missing or stale, and labels
    /// every photo not yet labelled by `labeller` (when given); returns the number of photos
    /// read or labelled and the photos that failed. Each photo is decoded once.
    /// `progress(done, total)` counts photos.
    package mutating func update(_ paths: [String], reader: TextReader, labeller: PhotoLabeller? = nil, threads: Int,
                                 progress: ((Int, Int) -> Void)? = nil) -> (read: Int, failures: [PhotosError]) {
        if labeller != nil, labelledBy != PhotoLabeller.name {
            // Labels of another labeller are not these: drop them, so every photo is labelled again.
            for path in entries.keys where entries[path]?.labels != nil {
                entries[path]?.labels = nil
                entries[path]?.vector = nil
            }
            labelledBy = PhotoLabeller.name
        }
        let work = paths.filter { path in
            guard let stamp = FileStamp.of(path), let entry = entries[path], entry.stamp == stamp else { return true }
            return labeller != nil && entry.labels == nil
        }
        var failures: [PhotosError] = []
        for (done, path) in work.enumerated() {
            progress?(done, work.count)
            guard let stamp = FileStamp.of(path) else { failures.append(.image(.unreadable(file: path, reason: "cannot stat"))); continue }
            do {
                let image: RGBImage
                do { image = try ImageDecoder().decode(fileAt: path).image } catch { throw PhotosError.image(error) }
                var entry: Entry
                if let old = entries[path], old.stamp == stamp {
                    entry = old
                } else {
                    let lines = try reader.read(image, threads: threads).filter(\.kept)
                    entry = Entry(stamp: stamp, text: lines.map(\.text).joined(separator: "\n"))
                }
                if let labeller { entry.labels = labeller.labels(for: image, threads: threads) }
                entry.vector = nil
                entries[path] = entry
            } catch let error as PhotosError {
                failures.append(error)
            } catch {
                failures.append(.recognition(reason: "\(error)"))
            }
        }
        progress?(work.count, work.count)
        return (work.count - failures.count, failures)
    }

    /// The photos under `paths` (all when nil) that have no vector by `embedder`, with the
    /// document to embed. Vectors of another embedder count as none.
    package func unembedded(by embedder: String, among paths: [String]? = nil) -> [(path: String, document: String)] {
        let keys = paths ?? Array(entries.keys)
        return keys.sorted().compactMap { path in
            guard let entry = entries[path], self.embedder != embedder || entry.vector == nil else { return nil }
            return (path, entry.document)
        }
    }

    /// Stores vectors by `embedder`; a different embedder than the index's drops every vector
    /// first, so vectors of two models never mix.
    package mutating func setVectors(_ vectors: [String: [Float]], embedder: String) {
        if self.embedder != embedder {
            for path in entries.keys { entries[path]?.vector = nil }
            self.embedder = embedder
        }
        for (path, vector) in vectors where entries[path] != nil { entries[path]?.vector = vector }
    }

    package func save() throws(PhotosError) {
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            data = try encoder.encode(Payload(reader: Self.readerName, labeller: labelledBy, embedder: embedder, entries: entries))
        } catch { throw .cache(path: file, reason: "encode: \(error)") }
        try AtomicFile.write([UInt8](data), to: file)
    }

    /// Lower-cased runs of letters and digits: the words a query is matched on.
    package static func terms(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    /// One photo found by a query.
    package struct Hit: Sendable, Equatable {
        package let path: String
        /// The ranking score: the word score without a query vector, else the fused rank score.
        package let score: Double
        package let text: String
        package let labels: [String]
        /// Σ idf of the query words the photo's text and labels contain, +1 for the whole phrase
        /// (0 when no word matches).
        package let wordScore: Double
        /// Cosine similarity of the photo's vector to the query's; nil without vectors.
        package let similarity: Float?
    }

    /// Reciprocal-rank fusion's constant: a hit's fused score is Σ 1 / (k + rank) over the two
    /// rankings (Cormack et al. 2009 use 60).
    static let fusionK = 60.0

    /// Photos matching `query`, best first. Only photos under `directory` (when given) are
    /// searched.
    ///
    /// Words: score = Σ idf of the query words a photo's text or labels contain (idf =
    /// ln(1 + (N - df + 0.5) / (df + 0.5)) over the searched photos), plus 1 when the whole query
    /// appears as a phrase. Without `queryVector` that is the ranking, and photos matching no
    /// word are not returned. With it (a unit vector by the index's embedder), photos are also
    /// ranked by cosine similarity of their vectors, and the two rankings are fused by
    /// reciprocal rank, so a photo is found by meaning when it shares no word with the query
    /// ("receipt" finds a till slip that never says receipt); every photo with a vector is then
    /// a candidate, and the similarity says how near it is.
    package func search(_ query: String, queryVector: [Float]? = nil, under directory: String? = nil, k: Int = 10) -> [Hit] {
        let prefix = directory.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
        let documents = entries.filter { prefix == nil || $0.key.hasPrefix(prefix!) }
        let queryTerms = Self.terms(query)
        let words = Array(Set(queryTerms))
        guard !documents.isEmpty, !words.isEmpty || queryVector != nil else { return [] }
        let termLists = documents.mapValues { Self.terms($0.document) }
        let termSets = termLists.mapValues(Set.init)
        let n = Double(documents.count)
        var idf: [String: Double] = [:]
        for word in words {
            let df = Double(termSets.values.filter { $0.contains(word) }.count)
            idf[word] = Foundation.log(1 + (n - df + 0.5) / (df + 0.5))
        }
        let phrase = queryTerms.joined(separator: " ")
        var wordScores: [String: Double] = [:]
        for path in documents.keys {
            let present = words.filter { termSets[path]!.contains($0) }
            guard !present.isEmpty else { continue }
            var score = present.reduce(0) { $0 + idf[$1]! }
            if termLists[path]!.joined(separator: " ").contains(phrase) { score += 1 }
            wordScores[path] = score
        }
        var similarities: [String: Float] = [:]
        if let queryVector {
            for (path, entry) in documents {
                guard let vector = entry.vector, vector.count == queryVector.count else { continue }
                similarities[path] = zip(vector, queryVector).reduce(0) { $0 + $1.0 * $1.1 }
            }
        }
        let byWords = wordScores.keys.sorted { (wordScores[$0]!, $1) > (wordScores[$1]!, $0) }
        var scores: [String: Double]
        if queryVector == nil {
            scores = wordScores
        } else {
            scores = [:]
            let byMeaning = similarities.keys.sorted { (similarities[$0]!, $1) > (similarities[$1]!, $0) }
            for (rank, path) in byWords.enumerated() { scores[path, default: 0] += 1 / (Self.fusionK + Double(rank + 1)) }
            for (rank, path) in byMeaning.enumerated() { scores[path, default: 0] += 1 / (Self.fusionK + Double(rank + 1)) }
        }
        return scores.keys.sorted { (scores[$0]!, $1) > (scores[$1]!, $0) }.prefix(k).map { path in
            let entry = documents[path]!
            return Hit(path: path, score: scores[path]!, text: entry.text, labels: entry.labels ?? [],
                       wordScore: wordScores[path] ?? 0, similarity: similarities[path])
        }
    }
}
