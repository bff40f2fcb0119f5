import Foundation
import Formats
import ModelStore
import Models
import Tokenizers

/// Loading an embedder from what a model ships as.
extension Embedder {
    /// Loads the model at `path`:
    /// - a directory with `config.json`, `model.safetensors` and `tokenizer.json` (or
    ///   `vocab.txt`): a BERT checkpoint in the sentence-transformers layout. The length limit is
    ///   `sentence_bert_config.json`'s `max_seq_length` (else the position table), and
    ///   `1_Pooling/config.json`, when present, must ask for mean pooling;
    /// - a `.gguf` file of architecture `nomic-bert`, with nomic's `search_query: ` /
    ///   `search_document: ` task prefixes and the file's context length as the limit.
    ///
    /// - Parameters:
    ///   - modelId: the identity's model id (default: the directory or file name).
    ///   - revision: the weights' SHA-256 when the caller knows it (the catalog pins it); else a
    ///     fingerprint of the weights file is computed.
    ///   - precision: how the linear layers multiply (`EncoderPrecision`); part of the identity.
    package static func load(path: String, modelId: String? = nil, revision: String? = nil,
                             threads: Int? = nil, precision: EncoderPrecision = .int16) throws(RetrievalError) -> Embedder {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .unsupportedModel(path: path, reason: "no such file or directory")
        }
        let name = modelId ?? URL(fileURLWithPath: path).lastPathComponent
        if isDirectory.boolValue { return try loadBERT(directory: path, modelId: name, revision: revision, threads: threads, precision: precision) }
        guard path.hasSuffix(".gguf") else { throw .unsupportedModel(path: path, reason: "a file that is not .gguf") }
        let file: GGUFFile
        do { file = try GGUFFile.open(path: path) } catch { throw .model(.format(error)) }
        guard file.architecture == NomicBERT.architecture else {
            throw .unsupportedModel(path: path, reason: "GGUF architecture \(file.architecture ?? "missing"); embeddings support nomic-bert")
        }
        if let pooling = file.int("nomic-bert.pooling_type"), pooling != 1 {
            throw .unsupportedModel(path: path, reason: "pooling type \(pooling); only mean pooling (1) is implemented")
        }
        let encoder: NomicBERT
        do { encoder = try NomicBERT(file: file, precision: precision) } catch { throw .model(error) }
        let tokenizer: WordPieceTokenizer
        do { tokenizer = try WordPieceTokenizer(gguf: file) } catch { throw .tokenizer(error) }
        try requireRoom(encoder.config.maxPositions, path: path, source: "nomic-bert.context_length")
        let weights: String
        if let revision { weights = revision } else { weights = try fingerprint(path) }
        return Embedder(encoder: encoder, tokenizer: tokenizer, maxTokens: encoder.config.maxPositions,
                        taskPrefixes: [.query: "search_query: ", .document: "search_document: "],
                        modelId: modelId ?? file.string("general.name") ?? name, revision: weights, threads: threads)
    }

    private static func loadBERT(directory: String, modelId: String, revision: String?, threads: Int?,
                                 precision: EncoderPrecision) throws(RetrievalError) -> Embedder {
        func json(_ relative: String) -> [String: Any]? {
            (try? Data(contentsOf: URL(fileURLWithPath: directory + "/" + relative)))
                .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        }
        if let pooling = json("1_Pooling/config.json"), pooling["pooling_mode_mean_tokens"] as? Bool != true {
            throw .unsupportedModel(path: directory, reason: "1_Pooling/config.json does not ask for mean pooling")
        }
        let encoder: BERTEncoder
        do { encoder = try BERTEncoder(directory: directory, precision: precision) } catch { throw .model(error) }
        let tokenizer: WordPieceTokenizer
        do {
            if let data = try? Data(contentsOf: URL(fileURLWithPath: directory + "/tokenizer.json")) {
                tokenizer = try WordPieceTokenizer(tokenizerJSON: data)
            } else if let text = try? String(contentsOfFile: directory + "/vocab.txt", encoding: .utf8) {
                let lower = json("tokenizer_config.json")?["do_lower_case"] as? Bool ?? true
                tokenizer = try WordPieceTokenizer(vocabText: text, lowercase: lower)
            } else {
                throw RetrievalError.unsupportedModel(path: directory, reason: "neither tokenizer.json nor vocab.txt")
            }
        } catch let error as TokenizerError {
            throw .tokenizer(error)
        } catch let error as RetrievalError {
            throw error
        } catch {
            throw .unsupportedModel(path: directory, reason: "\(error)")
        }
        let configured = json("sentence_bert_config.json")?["max_seq_length"] as? Int
        let maxTokens = min(configured ?? encoder.config.maxPositions, encoder.config.maxPositions)
        try requireRoom(maxTokens, path: directory,
                        source: configured.map { _ in "sentence_bert_config.json max_seq_length" } ?? "config.json max_position_embeddings")
        let weights: String
        if let revision { weights = revision } else { weights = try fingerprint(directory + "/model.safetensors") }
        return Embedder(encoder: encoder, tokenizer: tokenizer, maxTokens: maxTokens, taskPrefixes: [:],
                        modelId: modelId, revision: weights, threads: threads)
    }

    /// An input needs room for [CLS], one token and [SEP].
    private static func requireRoom(_ maxTokens: Int, path: String, source: String) throws(RetrievalError) {
        guard maxTokens >= 3 else {
            throw .unsupportedModel(path: path, reason: "\(source) is \(maxTokens); an input needs at least 3 tokens ([CLS], a token, [SEP])")
        }
    }

    /// A cheap stand-in for a weights file's SHA-256 when the catalog does not pin one:
    /// `fp1:` + the SHA-256 of the file size and its first and last MiB. It changes when the
    /// file is replaced by different weights (headers and tensor tables differ), without reading
    /// hundreds of megabytes on every load.
    package static func fingerprint(_ path: String) throws(RetrievalError) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .io(path: path, operation: "open", errno: errno)
        }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        var hash = SHA256()
        withUnsafeBytes(of: size.littleEndian) { hash.update(Array($0)) }
        let span: UInt64 = 1 << 20
        try? handle.seek(toOffset: 0)
        hash.update(Array(handle.readData(ofLength: Int(min(span, size)))))
        if size > span {
            try? handle.seek(toOffset: size - span)
            hash.update(Array(handle.readData(ofLength: Int(span))))
        }
        return "fp1:" + hash.finalize().hexString
    }
}
