import Models
import Retrieval
import TestSupport
import Tokenizers

/// A stand-in encoder for fast index tests: each token id has a fixed pseudo-random vector and
/// a sequence embeds as the mean of its tokens' vectors, so texts sharing words are similar.
/// Real models are tested against the golden references elsewhere.
struct HashingEncoder: TextEncoder {
    let config: EncoderConfig
    let precision = EncoderPrecision.float32
    /// Added to every token vector, so two encoders with different salts disagree.
    let salt: UInt64

    init(vocabularySize: Int, dimension: Int = 32, salt: UInt64 = 0) {
        config = EncoderConfig(layerCount: 1, embeddingLength: dimension, headCount: 1, feedForwardLength: dimension,
                               maxPositions: 64, vocabularySize: vocabularySize, typeVocabularySize: 1, layerNormEpsilon: 1e-12)
        self.salt = salt
    }

    func vector(_ id: Int32) -> [Float] {
        var g = SeededGenerator(seed: UInt64(bitPattern: Int64(id)) &* 0x9E37_79B9 &+ salt)
        return (0..<config.embeddingLength).map { _ in Float(Double(g.next() >> 11) / Double(1 << 53)) * 2 - 1 }
    }

    func meanPooled(_ batch: EncoderBatch, state: EncoderState, out: UnsafeMutablePointer<Float>) {
        let d = config.embeddingLength
        for (s, range) in batch.sequences.enumerated() {
            var sum = [Float](repeating: 0, count: d)
            // Skip [CLS] and [SEP] so they do not dominate short texts.
            for t in range.dropFirst().dropLast() {
                for (j, v) in vector(batch.tokens[t]).enumerated() { sum[j] += v }
            }
            for j in 0..<d { out[s * d + j] = sum[j] / Float(max(range.count - 2, 1)) }
        }
    }
}

enum TestEmbedders {
    static let words = ["the", "cat", "dog", "sat", "on", "mat", "paris", "tower", "eiffel", "france",
                        "mountain", "everest", "tallest", "bread", "bake", "oven", "river", "nile", "longest",
                        "swift", "language", "apple", "quantum", "computer", "qubit", "rain", "weather", "tomorrow"]

    /// Specials, the letters (so any word can be spelled), their `##` forms, and `words`.
    static let vocabulary: [String] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        + (UInt8(ascii: "a")...UInt8(ascii: "z")).map { String(UnicodeScalar($0)) }
        + (UInt8(ascii: "a")...UInt8(ascii: "z")).map { "##" + String(UnicodeScalar($0)) }
        + (0...9).map(String.init) + (0...9).map { "##\($0)" } + [".", ",", "?", "!", "-", "'"] + words

    static func tokenizer() throws -> WordPieceTokenizer {
        try WordPieceTokenizer(vocabulary: vocabulary, matchesSpecialTokens: true)
    }

    /// A fast embedder whose identity is `model`@`revision`.
    static func hashing(model: String = "hashing", revision: String = "r1", salt: UInt64 = 0, maxTokens: Int = 64) throws -> Embedder {
        let t = try tokenizer()
        return Embedder(encoder: HashingEncoder(vocabularySize: t.vocabularySize, salt: salt), tokenizer: t,
                        maxTokens: maxTokens, taskPrefixes: [:], modelId: model, revision: revision, threads: 1)
    }
}
