/// Errors of the tokenizer layer: bad vocabulary metadata, unsupported tokenizer kinds, chat templates.
package enum TokenizerError: Error, Sendable, Equatable {
    /// The vocabulary has no tokens.
    case emptyVocabulary
    /// A per-token array (`scores`, `types`) has a different length than `tokens`.
    case lengthMismatch(field: String, expected: Int, actual: Int)
    /// A special-token id from the metadata is outside the vocabulary.
    case tokenIdOutOfRange(field: String, id: Int32, vocabularySize: Int)
    /// Two vocabulary entries have the same text (llama.cpp rejects such vocabularies too).
    case duplicateToken(text: String, firstId: Int32, secondId: Int32)
    /// `tokenizer.ggml.model` names a tokenizer we do not implement.
    case unsupportedModel(name: String)
    /// `tokenizer.ggml.pre` names a pre-tokenizer we do not implement (or is missing for a BPE model).
    case unsupportedPreTokenizer(name: String)
    /// A byte-level BPE vocabulary came without `tokenizer.ggml.merges`.
    case missingMerges
    /// A metadata key the tokenizer needs is absent or has the wrong type.
    case missingMetadata(key: String)
    /// The model carries no `tokenizer.chat_template`.
    case noChatTemplate
    /// The chat template is not one of the families we can render.
    case unsupportedChatTemplate
    /// The model's chat template could not be parsed or run: `detail` names the construct and
    /// its line and column in the template.
    case chatTemplateFailed(detail: String)
    /// The template family has no way to express this role.
    case unsupportedRole(ChatMessage.Role)
}
