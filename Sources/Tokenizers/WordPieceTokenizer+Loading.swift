import Foundation
import Formats

/// Building a WordPiece tokenizer from the files models ship with.
extension WordPieceTokenizer {
    /// From a Hugging Face `tokenizer.json` whose model is `WordPiece`.
    ///
    /// Reads `model.vocab` (text → id), `model.unk_token`, `model.continuing_subword_prefix`
    /// (must be `##`), `model.max_input_chars_per_word`; `normalizer` (`BertNormalizer` flags
    /// `lowercase`, `strip_accents`, `handle_chinese_chars`, `clean_text`); the `[CLS]`/`[SEP]`
    /// texts of `post_processor` (`TemplateProcessing` or `BertProcessing`); and the
    /// `added_tokens` marked special, which are matched whole in the input as Hugging Face does.
    package convenience init(tokenizerJSON data: Data) throws(TokenizerError) {
        guard let root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else {
            throw .missingMetadata(key: "tokenizer.json (not a JSON object)")
        }
        guard let model = root["model"] as? [String: Any], model["type"] as? String == "WordPiece" else {
            throw .unsupportedModel(name: "tokenizer.json model \((root["model"] as? [String: Any])?["type"] ?? "missing")")
        }
        guard let vocab = model["vocab"] as? [String: Int] else { throw .missingMetadata(key: "tokenizer.json model.vocab") }
        let prefix = model["continuing_subword_prefix"] as? String ?? "##"
        guard prefix == "##" else { throw .unsupportedModel(name: "WordPiece with continuing_subword_prefix '\(prefix)'") }
        var tokens = [String](repeating: "", count: vocab.count)
        for (text, id) in vocab {
            guard id >= 0, id < vocab.count, tokens[id].isEmpty else {
                throw .tokenIdOutOfRange(field: "tokenizer.json model.vocab '\(text)'", id: Int32(clamping: id), vocabularySize: vocab.count)
            }
            tokens[id] = text
        }
        var normalizer = WordPieceNormalizer()
        if let n = root["normalizer"] as? [String: Any] {
            guard n["type"] as? String == "BertNormalizer" else {
                throw .unsupportedModel(name: "tokenizer.json normalizer \(n["type"] ?? "?")")
            }
            let lowercase = n["lowercase"] as? Bool ?? true
            normalizer = WordPieceNormalizer(lowercase: lowercase, stripAccents: n["strip_accents"] as? Bool,
                                             splitCJK: n["handle_chinese_chars"] as? Bool ?? true,
                                             cleanText: n["clean_text"] as? Bool ?? true)
        }
        var cls = "[CLS]", sep = "[SEP]"
        if let post = root["post_processor"] as? [String: Any] {
            if let c = post["cls"] as? [Any], let text = c.first as? String { cls = text }
            if let s = post["sep"] as? [Any], let text = s.first as? String { sep = text }
            if let single = post["single"] as? [[String: Any]] {
                let specials = single.compactMap { ($0["SpecialToken"] as? [String: Any])?["id"] as? String }
                if specials.count == 2 { (cls, sep) = (specials[0], specials[1]) }
            }
        }
        let added = (root["added_tokens"] as? [[String: Any]] ?? [])
            .filter { $0["special"] as? Bool == true }.compactMap { $0["content"] as? String }
        try self.init(vocabulary: tokens, clsToken: cls, sepToken: sep,
                      unknownToken: model["unk_token"] as? String ?? "[UNK]",
                      padToken: (root["padding"] as? [String: Any])?["pad_token"] as? String ?? "[PAD]",
                      specialTokens: added, normalizer: normalizer,
                      maxInputCharsPerWord: model["max_input_chars_per_word"] as? Int ?? 100,
                      matchesSpecialTokens: true)
    }

    /// From a BERT `vocab.txt` (one token per line, id = line number).
    package convenience init(vocabText: String, lowercase: Bool = true) throws(TokenizerError) {
        var lines = vocabText.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }
        if lines.last == "" { lines.removeLast() }
        try self.init(vocabulary: lines, normalizer: WordPieceNormalizer(lowercase: lowercase), matchesSpecialTokens: true)
    }

    /// From the `tokenizer.*` metadata of a GGUF BERT-family model (`tokenizer.ggml.model` =
    /// `bert`), as llama.cpp's converter writes it: word-initial pieces carry a leading U+2581
    /// (`▁`), continuation pieces have no `##`, and bracketed texts such as `[CLS]` or
    /// `[unused0]` are kept as they are. Those spellings are mapped back to BERT's.
    /// `[CLS]`/`[SEP]` are `bos_token_id`/`eos_token_id` (else `seperator_token_id`); the input
    /// is not searched for special texts, as llama.cpp tokenizes with `special = false`.
    package convenience init(gguf: GGUFFile) throws(TokenizerError) {
        guard let model = gguf.string("tokenizer.ggml.model") else { throw .missingMetadata(key: "tokenizer.ggml.model") }
        guard model == "bert" else { throw .unsupportedModel(name: model) }
        guard let pieces = gguf.stringArray("tokenizer.ggml.tokens") else { throw .missingMetadata(key: "tokenizer.ggml.tokens") }
        let tokens = pieces.map(Self.bertSpelling)
        func text(_ key: String) throws(TokenizerError) -> String {
            guard let id = gguf.int("tokenizer.ggml.\(key)") else { throw .missingMetadata(key: "tokenizer.ggml.\(key)") }
            guard id >= 0, id < tokens.count else {
                throw .tokenIdOutOfRange(field: key, id: Int32(clamping: id), vocabularySize: tokens.count)
            }
            return tokens[id]
        }
        let sep = gguf.int("tokenizer.ggml.eos_token_id") != nil ? try text("eos_token_id") : try text("seperator_token_id")
        try self.init(vocabulary: tokens, clsToken: try text("bos_token_id"), sepToken: sep,
                      unknownToken: try text("unknown_token_id"), padToken: try text("padding_token_id"),
                      matchesSpecialTokens: false)
    }

    /// BERT's spelling of a GGUF WordPiece vocabulary entry.
    package static func bertSpelling(_ piece: String) -> String {
        // Scalars, not Characters: "▁" followed by a combining mark is one Character.
        if piece.unicodeScalars.first == "\u{2581}" { return String(String.UnicodeScalarView(piece.unicodeScalars.dropFirst())) }
        if piece.hasPrefix("[") && piece.hasSuffix("]") { return piece }
        return "##" + piece
    }
}
