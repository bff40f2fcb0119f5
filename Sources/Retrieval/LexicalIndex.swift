import Tokenizers

/// Okapi BM25 over chunk text: the search that works with no embedding model at all.
///
/// Terms are the BERT pre-tokenizer's words (lower-cased, accents stripped, split at
/// punctuation, CJK ideographs one per term) with punctuation dropped, so lexical and semantic
/// search see the same words. Scoring (Robertson & Zaragoza 2009, with Lucene's non-negative
/// idf): Σ over query terms of idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen)),
/// idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)), k1 = 1.2, b = 0.75.
struct LexicalIndex {
    static let k1: Float = 1.2
    static let b: Float = 0.75

    private(set) var keys: [ChunkKey] = []
    private var lengths: [Int] = []
    private var postings: [String: [(row: Int, tf: Int)]] = [:]
    private var totalLength = 0
    private let normalizer = WordPieceNormalizer()

    var count: Int { keys.count }

    /// The terms of `text`.
    func terms(_ text: String) -> [String] {
        normalizer.words(Array(text.unicodeScalars)).compactMap { word in
            if word.scalars.count == 1 && WordPieceNormalizer.isPunctuation(word.scalars[0]) { return nil }
            var s = String.UnicodeScalarView()
            s.append(contentsOf: word.scalars)
            return String(s)
        }
    }

    mutating func add(_ key: ChunkKey, text: String) {
        let row = keys.count
        let words = terms(text)
        var tf: [String: Int] = [:]
        for w in words { tf[w, default: 0] += 1 }
        for (term, n) in tf { postings[term, default: []].append((row, n)) }
        keys.append(key)
        lengths.append(words.count)
        totalLength += words.count
    }

    /// The `k` best chunks for `query`, best first; chunks sharing no term with the query are
    /// not returned.
    func search(_ query: String, k: Int) -> [(row: Int, score: Float)] {
        guard !keys.isEmpty else { return [] }
        let n = Float(keys.count)
        let average = max(Float(totalLength) / n, 1)
        var scores = [Float](repeating: 0, count: keys.count)
        var touched = [Bool](repeating: false, count: keys.count)
        for term in Set(terms(query)) {
            guard let list = postings[term] else { continue }
            let df = Float(list.count)
            let idf = logf(1 + (n - df + 0.5) / (df + 0.5))
            for (row, tf) in list {
                let f = Float(tf)
                let norm = Self.k1 * (1 - Self.b + Self.b * Float(lengths[row]) / average)
                scores[row] += idf * f * (Self.k1 + 1) / (f + norm)
                touched[row] = true
            }
        }
        let matched = touched.filter { $0 }.count
        return TopK.select(scores, k: min(k, matched)) { keys[$0] }.filter { touched[$0.row] }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
