import Formats
import Models
import Tokenizers

/// Errors of embedding, indexing, search and RAG. Every case says what and where.
package enum RetrievalError: Error, Sendable, Equatable {
    /// The embedding model could not be loaded.
    case model(ModelError)
    /// The model's tokenizer files could not be read.
    case tokenizer(TokenizerError)
    /// A model path that is neither a BERT directory (config.json, model.safetensors,
    /// tokenizer.json or vocab.txt) nor a GGUF file of a supported encoder.
    case unsupportedModel(path: String, reason: String)
    /// An input is longer than the model takes and the options say to fail.
    case inputTooLong(input: Int, tokens: Int, limit: Int)
    /// The index holds vectors of one backend and the query comes from another: re-embed the
    /// index with the new backend (`DocumentIndex.reembed`) or use the index's own model.
    case backendMismatch(index: BackendIdentity, query: BackendIdentity)
    /// A semantic operation was asked of an index that has no embedding model to use.
    case noEmbeddingModel
    /// A system call on an index file failed.
    case io(path: String, operation: String, errno: Int32)
    /// An index file is damaged in a way that is not a torn final write (bad header, record
    /// out of order); the journal is left as it is.
    case corruptIndex(path: String, offset: Int, reason: String)
    /// Another process holds the index's write lock.
    case indexLocked(path: String)
    /// No document with this id is in the index.
    case unknownDocument(id: String)
    /// An argument out of its range (k < 1, overlap ≥ chunk size, …).
    case invalidArgument(name: String, value: String, expected: String)
    /// The caller cancelled.
    case cancelled
}

extension RetrievalError: CustomStringConvertible {
    /// One line for logs and the CLI.
    package var description: String {
        switch self {
        case .model(let e): "embedding model: \(e)"
        case .tokenizer(let e): "embedding tokenizer: \(e)"
        case let .unsupportedModel(path, reason): "\(path): not a supported embedding model (\(reason))"
        case let .inputTooLong(input, tokens, limit): "input \(input) has \(tokens) tokens, over the model's \(limit)"
        case let .backendMismatch(index, query):
            "the index holds vectors of \(index), the query backend is \(query); re-embed the index or use its model"
        case .noEmbeddingModel: "no embedding model is available for a semantic operation"
        case let .io(path, operation, errno): "\(path): \(operation) failed (errno \(errno))"
        case let .corruptIndex(path, offset, reason): "\(path): corrupt index at byte \(offset): \(reason)"
        case .indexLocked(let path): "\(path): the index is locked by another process"
        case .unknownDocument(let id): "no document '\(id)' in the index"
        case let .invalidArgument(name, value, expected): "\(name) = \(value): expected \(expected)"
        case .cancelled: "cancelled"
        }
    }
}
