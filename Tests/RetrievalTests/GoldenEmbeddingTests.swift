import Foundation
import Models
import Retrieval
import Testing

/// Our encoders against the golden embeddings: sentence-transformers for MiniLM, llama.cpp for
/// nomic (../shared/golden/embeddings). Token ids must be equal; vectors within cosine 0.999
/// (MiniLM lands within 3e-5 of 1 with the default int16 products and within 1e-6 in f32).
@Suite(.serialized) struct GoldenEmbeddingTests {
    @Test func `MiniLM token ids and embeddings match sentence-transformers`() throws {
        let embedder = try Fixtures.miniLM.get()
        let records = try Fixtures.lines("minilm.jsonl")
        #expect(records.count == 20)
        let result = try embedder.embed(records.map { $0.string("text") })
        var worst: Float = 1
        for (record, e) in zip(records, result.embeddings) {
            let id = record.string("id")
            #expect(e.tokens == record.ints("input_ids"), "\(id) token ids")
            #expect(e.tokens.map { embedder.tokenizer.tokenText($0) ?? "?" } == (record["tokens"] as? [String] ?? []), "\(id) pieces")
            let c = cosine(e.vector, record.floats("embedding"))
            worst = min(worst, c)
            #expect(c >= 0.999, "\(id): cosine \(c)")
            let norm = (record["mean_pooled_norm_before_normalize"] as? NSNumber)?.floatValue ?? 0
            // The length before normalization moves more than the direction with int16 products
            // (up to 0.13% on this set, where the direction is within 3e-5).
            #expect(abs(e.pooledNorm - norm) < 3e-3 * norm, "\(id): pooled norm \(e.pooledNorm) vs \(norm)")
        }
        // int16 products (about 12 bits per operand) against fp32: far tighter than the bar.
        #expect(worst > 0.9999, "worst MiniLM cosine \(worst)")
    }

    @Test func `MiniLM in float32 precision matches to 1e-5 and is another backend`() throws {
        let int16 = try Fixtures.miniLM.get()
        let float32 = try Embedder.load(path: try Fixtures.miniLMDirectory(), modelId: "all-minilm-l6-v2", threads: 2,
                                        precision: .float32)
        let records = try Fixtures.lines("minilm.jsonl")
        let result = try float32.embed(records.map { $0.string("text") })
        let worst = zip(records, result.embeddings).map { cosine($1.vector, $0.floats("embedding")) }.min() ?? 0
        #expect(worst > 0.99999, "worst MiniLM cosine in float32 \(worst)")
        for (record, e) in zip(records, result.embeddings) {
            let norm = (record["mean_pooled_norm_before_normalize"] as? NSNumber)?.floatValue ?? 0
            #expect(abs(e.pooledNorm - norm) < 1e-3 * norm, "\(record.string("id")): pooled norm \(e.pooledNorm) vs \(norm)")
        }
        // Vectors of the two precisions differ in their last bits: an index never mixes them.
        #expect(float32.identity != int16.identity)
        #expect(int16.identity.preprocessing.hasSuffix(";int16") && float32.identity.preprocessing.hasSuffix(";float32"))
        // The int16 encoder gave back the file pages of the weights it repacked (~43 MB of 90).
        #expect(int16.encoder.evictedBytes > 40_000_000 && float32.encoder.evictedBytes == 0)
    }

    @Test func `nomic token ids and embeddings match llama.cpp`() throws {
        let embedder = try Fixtures.nomic.get()
        let records = try Fixtures.lines("nomic.jsonl")
        #expect(records.count == 40)
        // The golden text already carries its prefix, so embed it as given.
        let result = try embedder.embed(records.map { $0.string("text") })
        for (record, e) in zip(records, result.embeddings) {
            let id = record.string("id")
            #expect(e.tokens == record.ints("input_ids"), "\(id) token ids")
            let c = cosine(e.vector, record.floats("embedding"))
            #expect(c >= 0.999, "\(id): cosine \(c)")
        }
    }

    @Test func `task prefixes are nomic's and apply only when asked`() throws {
        let embedder = try Fixtures.nomic.get()
        let records = try Fixtures.lines("nomic.jsonl")
        let query = try #require(records.first { $0.string("id").hasSuffix("q") })
        let sentence = String(query.string("text").dropFirst("search_query: ".count))
        let e = try embedder.embed(sentence, options: EmbeddingOptions(task: .query))
        #expect(e.tokens == query.ints("input_ids"))
        #expect(cosine(e.vector, query.floats("embedding")) >= 0.999)
        let explicit = try embedder.embed(sentence, options: EmbeddingOptions(prefix: "search_query: "))
        #expect(explicit.vector == e.vector)
        let plain = try embedder.embed(sentence)
        #expect(plain.tokens.count < e.tokens.count)
    }
}
