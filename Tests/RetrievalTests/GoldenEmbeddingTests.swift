import Foundation
import Models
import Retrieval
import TestSupport
import Testing

/// Our encoders against the golden embeddings: sentence-transformers for MiniLM, llama.cpp for
/// nomic (../shared/golden/embeddings). Token ids must be equal; vectors within the cosine bounds
/// below, each a few times the worst measured over the set (2-core AVX2 machine; printed).
@Suite(.serialized) struct GoldenEmbeddingTests {
    /// MiniLM with int16 products (about 12 bits per operand): measured 1 - cosine 2.6e-5.
    static let miniLMInt16Cosine: Float = 0.9999
    /// MiniLM in float32: measured 1 - cosine below 6e-8 (prints as 1.0), the float's own
    /// resolution near 1; the bound is 1e-6.
    static let miniLMFloat32Cosine: Float = 0.999999
    /// nomic F16 against llama.cpp: measured 1 - cosine 8.6e-5.
    static let nomicCosine: Float = 0.9995

    @Test func `MiniLM token ids and embeddings match sentence-transformers`() throws {
        let embedder = try Fixtures.miniLM.get()
        let records = try Fixtures.lines("minilm.jsonl")
        #expect(records.count == 20)
        let result = try embedder.embed(records.map { $0.string("text") })
        try #require(result.embeddings.count == records.count, "\(result.embeddings.count) embeddings for \(records.count) texts")
        var worst: Float = 1, worstNorm: Float = 0
        for (record, e) in zip(records, result.embeddings) {
            let id = record.string("id")
            #expect(e.tokens == record.ints("input_ids"), "\(id) token ids")
            #expect(e.tokens.map { embedder.tokenizer.tokenText($0) ?? "?" } == (record["tokens"] as? [String] ?? []), "\(id) pieces")
            let c = cosine(e.vector, record.floats("embedding"))
            worst = min(worst, c)
            #expect(c >= Self.miniLMInt16Cosine, "\(id): cosine \(c)")
            let norm = try #require((record["mean_pooled_norm_before_normalize"] as? NSNumber)?.floatValue, "\(id): no pooled norm")
            worstNorm = max(worstNorm, abs(e.pooledNorm - norm) / norm)
            // The length before normalization moves more than the direction with int16 products
            // (measured 1.24e-3 relative on this set, where the direction is within 3e-5).
            #expect(abs(e.pooledNorm - norm) < 3e-3 * norm, "\(id): pooled norm \(e.pooledNorm) vs \(norm)")
        }
        print("[embeddings] MiniLM int16: worst cosine \(worst), pooled norm max relative diff \(worstNorm) over \(records.count) texts")
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test func `MiniLM in float32 precision matches to 1e-5 and is another backend`() throws {
        let int16 = try Fixtures.miniLM.get()
        let float32 = try Embedder.load(path: try Fixtures.miniLMDirectory(), modelId: "all-minilm-l6-v2", threads: 2,
                                        precision: .float32)
        let records = try Fixtures.lines("minilm.jsonl")
        let result = try float32.embed(records.map { $0.string("text") })
        try #require(result.embeddings.count == records.count, "\(result.embeddings.count) embeddings for \(records.count) texts")
        let worst = zip(records, result.embeddings).map { cosine($1.vector, $0.floats("embedding")) }.min() ?? 0
        #expect(worst >= Self.miniLMFloat32Cosine, "worst MiniLM cosine in float32 \(worst)")
        var worstNorm: Float = 0
        for (record, e) in zip(records, result.embeddings) {
            let norm = try #require((record["mean_pooled_norm_before_normalize"] as? NSNumber)?.floatValue, "no pooled norm")
            worstNorm = max(worstNorm, abs(e.pooledNorm - norm) / norm)
            // Measured 3.2e-7 relative (the reference is rounded to 6 decimals); bound 2e-6.
            #expect(abs(e.pooledNorm - norm) < 2e-6 * norm, "\(record.string("id")): pooled norm \(e.pooledNorm) vs \(norm)")
        }
        print("[embeddings] MiniLM float32: worst cosine \(worst), pooled norm max relative diff \(worstNorm) over \(records.count) texts")
        // Vectors of the two precisions differ in their last bits: an index never mixes them.
        #expect(float32.identity != int16.identity)
        #expect(int16.identity.preprocessing.hasSuffix(";int16") && float32.identity.preprocessing.hasSuffix(";float32"))
        // The int16 encoder gave back the file pages of the weights it repacked (~43 MB of 90).
        #expect(int16.encoder.evictedBytes > 40_000_000 && float32.encoder.evictedBytes == 0)
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test func `nomic token ids and embeddings match llama.cpp`() throws {
        let embedder = try Fixtures.nomic.get()
        let records = try Fixtures.lines("nomic.jsonl")
        #expect(records.count == 40)
        // The golden text already carries its prefix, so embed it as given.
        let result = try embedder.embed(records.map { $0.string("text") })
        try #require(result.embeddings.count == records.count, "\(result.embeddings.count) embeddings for \(records.count) texts")
        var worst: Float = 1
        for (record, e) in zip(records, result.embeddings) {
            let id = record.string("id")
            #expect(e.tokens == record.ints("input_ids"), "\(id) token ids")
            let c = cosine(e.vector, record.floats("embedding"))
            worst = min(worst, c)
            #expect(c >= Self.nomicCosine, "\(id): cosine \(c)")
        }
        print("[embeddings] nomic: worst cosine \(worst) over \(records.count) texts")
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test func `task prefixes are nomic's and apply only when asked`() throws {
        let embedder = try Fixtures.nomic.get()
        let records = try Fixtures.lines("nomic.jsonl")
        let query = try #require(records.first { $0.string("id").hasSuffix("q") })
        let sentence = String(query.string("text").dropFirst("search_query: ".count))
        let e = try embedder.embed(sentence, options: EmbeddingOptions(task: .query))
        #expect(e.tokens == query.ints("input_ids"))
        #expect(cosine(e.vector, query.floats("embedding")) >= Self.nomicCosine)
        let explicit = try embedder.embed(sentence, options: EmbeddingOptions(prefix: "search_query: "))
        #expect(explicit.vector == e.vector)
        let plain = try embedder.embed(sentence)
        #expect(plain.tokens.count < e.tokens.count)
    }
}
