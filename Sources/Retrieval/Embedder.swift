import Foundation
import Models
import Platform
import Tokenizers

/// The embedding front door: text → L2-normalized vectors with a model on our engine
/// (all-MiniLM-L6-v2 from safetensors, nomic-embed-text-v1.5 from GGUF, or any checkpoint of
/// those architectures). Immutable and shareable; concurrent calls each borrow their own scratch.
///
/// Pipeline: optional task prefix → WordPiece → `[CLS]` … `[SEP]` (over-long inputs truncated,
/// chunked or refused per `OverflowPolicy`, with an event) → packed batches through the encoder
/// → mean pooling → L2 normalization.
package final class Embedder: Sendable {
    package let identity: BackendIdentity
    package let tokenizer: WordPieceTokenizer
    package let encoder: any TextEncoder
    /// Longest model input, `[CLS]` and `[SEP]` included.
    package let maxTokens: Int
    /// Prefixes the model was trained with, by task (empty for models without them).
    package let taskPrefixes: [EmbeddingTask: String]
    /// Kernel threads of each forward pass.
    package let threads: Int
    private let pool = StatePool()

    package var dimension: Int { identity.dimension }

    /// Bytes of the encoder scratch states not in use right now (each grows to the largest
    /// batch it has run); the runtime counts them in the model's resident size.
    package var idleScratchBytes: Int { pool.allocatedBytes() }

    package init(encoder: any TextEncoder, tokenizer: WordPieceTokenizer, maxTokens: Int,
                 taskPrefixes: [EmbeddingTask: String], modelId: String, revision: String, threads: Int? = nil) {
        precondition(maxTokens >= 3, "an input needs room for [CLS], a token and [SEP]")
        self.encoder = encoder
        self.tokenizer = tokenizer
        self.maxTokens = maxTokens
        self.taskPrefixes = taskPrefixes
        self.threads = max(1, threads ?? ProcessInfo.processInfo.activeProcessorCount)
        let scheme = taskPrefixes.isEmpty ? "none"
            : EmbeddingTask.allCases.map { "\($0.rawValue)=\(taskPrefixes[$0] ?? "")" }.joined(separator: ",")
        let normalizer = tokenizer.normalizer
        let text = (normalizer.lowercase ? "uncased" : "cased") + (normalizer.stripAccents ? "+noaccent" : "")
        identity = BackendIdentity(
            modelId: modelId, revision: revision,
            preprocessing: "v1;wordpiece-\(text);cls-sep;max=\(maxTokens);mean;l2;prefixes{\(scheme)};\(encoder.precision.rawValue)",
            dimension: encoder.config.embeddingLength)
    }

    /// The prefix `options` asks for.
    package func prefix(for options: EmbeddingOptions) -> String {
        options.prefix ?? options.task.flatMap { taskPrefixes[$0] } ?? ""
    }

    /// Embeds `texts`, in order.
    package func embed(_ texts: [String], options: EmbeddingOptions = EmbeddingOptions()) throws(RetrievalError) -> EmbeddingResult {
        guard options.batchTokens >= maxTokens else {
            throw .invalidArgument(name: "batchTokens", value: String(options.batchTokens), expected: "at least \(maxTokens)")
        }
        let prefix = prefix(for: options)
        let limit = maxTokens - 2
        var events: [EmbeddingEvent] = []
        var windows: [[Int32]] = []   // model inputs
        var owners: [Int] = []        // input index of each window
        for (i, text) in texts.enumerated() {
            let pieces = tokenizer.encodePieces(prefix + text).ids
            var parts: [ArraySlice<Int32>] = [pieces[...]]
            if pieces.count > limit {
                switch options.overflow {
                case .fail: throw .inputTooLong(input: i, tokens: pieces.count + 2, limit: maxTokens)
                case .truncate:
                    parts = [pieces[..<limit]]
                    events.append(.truncated(input: i, tokens: pieces.count + 2, limit: maxTokens))
                case .chunk:
                    parts = stride(from: 0, to: pieces.count, by: limit).map { pieces[$0..<min($0 + limit, pieces.count)] }
                    events.append(.chunked(input: i, tokens: pieces.count + 2, windows: parts.count))
                }
            }
            for part in parts {
                windows.append([tokenizer.clsId] + part + [tokenizer.sepId])
                owners.append(i)
            }
        }
        let pooled = try run(windows, batchTokens: options.batchTokens)
        let d = dimension
        var embeddings = texts.indices.map { _ in Embedding(vector: [Float](repeating: 0, count: d), sequences: [], pooledNorm: 0) }
        // Windows of one input combine weighted by length: the mean over all their tokens.
        var weights = [Int](repeating: 0, count: texts.count)
        for (w, owner) in owners.enumerated() {
            let n = windows[w].count
            for j in 0..<d { embeddings[owner].vector[j] += pooled[w * d + j] * Float(n) }
            weights[owner] += n
            embeddings[owner].sequences.append(windows[w])
        }
        for i in embeddings.indices {
            let scale = 1 / Float(max(weights[i], 1))
            for j in 0..<d { embeddings[i].vector[j] *= scale }
            embeddings[i].pooledNorm = Self.normalize(&embeddings[i].vector)
        }
        return EmbeddingResult(embeddings: embeddings, events: events, tokenCount: windows.reduce(0) { $0 + $1.count })
    }

    /// Embeds one text.
    package func embed(_ text: String, options: EmbeddingOptions = EmbeddingOptions()) throws(RetrievalError) -> Embedding {
        try embed([text], options: options).embeddings[0]
    }

    /// Mean-pooled vectors of model inputs, (windows.count, d), in packed passes of at most
    /// `batchTokens` tokens.
    private func run(_ windows: [[Int32]], batchTokens: Int) throws(RetrievalError) -> [Float] {
        let d = dimension, vocabulary = encoder.config.vocabularySize
        for w in windows {
            if let bad = w.first(where: { $0 < 0 || Int($0) >= vocabulary }) {
                throw .tokenizer(.tokenIdOutOfRange(field: "input", id: bad, vocabularySize: vocabulary))
            }
        }
        var out = [Float](repeating: 0, count: windows.count * d)
        let state = pool.take() ?? EncoderState(config: encoder.config, threads: threads)
        defer { pool.give(state) }
        var start = 0
        out.withUnsafeMutableBufferPointer { out in
            while start < windows.count {
                var batch = EncoderBatch()
                var end = start
                while end < windows.count && (end == start || batch.tokenCount + windows[end].count <= batchTokens) {
                    batch.append(windows[end])
                    end += 1
                }
                encoder.meanPooled(batch, state: state, out: out.baseAddress! + start * d)
                start = end
            }
        }
        return out
    }

    /// Scales `v` to unit length (a zero vector stays zero) and returns its former norm.
    @discardableResult
    package static func normalize(_ v: inout [Float]) -> Float {
        var sum: Double = 0
        for x in v { sum += Double(x) * Double(x) }
        let norm = Float(sum.squareRoot())
        // torch.nn.functional.normalize divides by max(norm, 1e-12).
        let scale = 1 / max(norm, 1e-12)
        for i in v.indices { v[i] *= scale }
        return norm
    }
}

/// Encoder scratch states not in use. A state is in at most one caller's hands at a time: `take`
/// removes it, `give` returns it.
///
/// `@unchecked Sendable`: the array is only touched under the mutex, and a state taken out is
/// owned by exactly one caller until given back.
private final class StatePool: @unchecked Sendable {
    private let lock = Locked(())
    private var states: [EncoderState] = []

    func take() -> EncoderState? { lock.withLock { _ in states.popLast() } }
    func give(_ state: EncoderState) { lock.withLock { _ in states.append(state) } }
    func allocatedBytes() -> Int { lock.withLock { _ in states.reduce(0) { $0 + $1.allocatedBytes } } }
}
