/// How byte-level BPE splits text into words before merging, from GGUF `tokenizer.ggml.pre`.
///
/// Each case names the split llama.cpp applies for that pre-tokenizer type (ggml-org/llama.cpp
/// @00ad355e `src/llama-vocab.cpp`, `llm_tokenizer_bpe`); the splits are hand-written scanners,
/// not regexes.
package enum PreTokenizer: Sendable, Equatable {
    /// `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`.
    case gpt2
    /// Every `\p{N}` code point on its own, then the GPT-2 split on the text between
    /// (`smollm`, `starcoder`, `refact`, `command-r`, `codeshell`, `exaone`, `minerva-7b`).
    case digitsThenGPT2
    /// Llama 3: case-insensitive contractions, `[^\r\n\p{L}\p{N}]?\p{L}+`, `\p{N}{1,3}`,
    /// ` ?[^\s\p{L}\p{N}]+[\r\n]*`, `\s*[\r\n]+`, `\s+(?!\S)`, `\s+`. Whole words found in the
    /// vocabulary skip the merges (llama.cpp `ignore_merges`).
    case llama3
    /// Qwen 2: the Llama 3 split with single digits `\p{N}`.
    case qwen2
    /// No split: the SentencePiece model works on the whole text fragment.
    case none

    /// Maps a GGUF pre-tokenizer name for `model`. SentencePiece ignores the name (llama.cpp does too).
    /// A byte-level BPE model with a missing or unknown name is a typed error rather than a guess:
    /// a wrong split silently changes token ids.
    package init(ggufName: String?, model: TokenizerModel) throws(TokenizerError) {
        if model == .sentencePiece {
            self = .none
            return
        }
        switch ggufName {
        // (Names whose llama.cpp vocabularies also need per-token lstrip rules, such as the
        // jina-v2 embedders, are deliberately absent.)
        case "gpt-2", "phi-2", "jina-es", "jina-de", "jina-v1-en", "roberta-bpe", "gigachat", "mpt", "olmo", "jais":
            self = .gpt2
        case "smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva-7b":
            self = .digitsThenGPT2
        case "llama3", "llama-v3", "llama-bpe", "falcon3", "pixtral":
            self = .llama3
        case "qwen2", "deepseek-r1-qwen", "stablelm2", "megrez":
            self = .qwen2
        default:
            throw .unsupportedPreTokenizer(name: ggufName ?? "<missing>")
        }
    }
}
