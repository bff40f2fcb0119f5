import Foundation

/// Whisper's tokenizer, from a faster-whisper folder's `tokenizer.json` (Hugging Face format):
/// GPT-2 byte-level BPE for text, then special tokens (`<|endoftext|>`, `<|startoftranscript|>`,
/// languages, tasks, `<|notimestamps|>` …) and the 1501 timestamp tokens `<|0.00|>` … `<|30.00|>`
/// that follow `<|notimestamps|>` (those are not in `tokenizer.json`; CTranslate2's vocabulary
/// lists them, and their ids are all that matters).
package final class WhisperTokenizer: Sendable {
    package let tokenizer: Tokenizer
    package let vocabularySize: Int
    package let endOfText: Int32
    package let startOfTranscript: Int32
    package let startOfPrevious: Int32
    package let startOfLM: Int32
    package let noTimestamps: Int32
    package let transcribe: Int32
    package let translate: Int32
    /// `<|nospeech|>`, or `<|nocaptions|>` in older vocabularies.
    package let noSpeech: Int32
    /// Language codes ("en", "de", …) by token id, for multilingual models.
    package let languages: [Int32: String]
    package let isMultilingual: Bool

    /// The first timestamp token, `<|0.00|>`; each later one is 0.02 s further.
    package var timestampBegin: Int32 { noTimestamps + 1 }

    /// Parses `tokenizer.json` for a model with `vocabularySize` tokens (timestamps included).
    package init(json: Data, vocabularySize: Int) throws(TokenizerError) {
        guard let object = try? JSONSerialization.jsonObject(with: json), let root = object as? [String: Any],
              let model = root["model"] as? [String: Any], let vocab = model["vocab"] as? [String: Int] else {
            throw .missingMetadata(key: "tokenizer.json model.vocab")
        }
        guard (model["type"] as? String) == "BPE" else { throw .unsupportedModel(name: "\(model["type"] ?? "none")") }
        let merges: [String]
        if let strings = model["merges"] as? [String] {
            merges = strings
        } else if let pairs = model["merges"] as? [[String]] {
            merges = pairs.map { $0.joined(separator: " ") }
        } else {
            throw .missingMerges
        }
        var texts = [String?](repeating: nil, count: vocabularySize)
        var types = [Int32](repeating: 1, count: vocabularySize)
        for (text, id) in vocab where id >= 0 && id < vocabularySize { texts[id] = text }
        for case let added as [String: Any] in root["added_tokens"] as? [Any] ?? [] {
            guard let id = added["id"] as? Int, let text = added["content"] as? String, id >= 0, id < vocabularySize else { continue }
            texts[id] = text
            types[id] = (added["special"] as? Bool ?? true) ? 3 : 4
        }
        func id(_ text: String) throws(TokenizerError) -> Int32 {
            guard let i = texts.firstIndex(of: text) else { throw .missingMetadata(key: "token \(text)") }
            return Int32(i)
        }
        let noTimestamps = try id("<|notimestamps|>")
        for i in Int(noTimestamps + 1)..<vocabularySize where texts[i] == nil {
            texts[i] = String(format: "<|%.2f|>", Double(i - Int(noTimestamps) - 1) * 0.02)
            types[i] = 3
        }
        for i in 0..<vocabularySize where texts[i] == nil {
            texts[i] = "<|unused_\(i)|>"
            types[i] = 5
        }
        let spec = TokenizerSpec(tokens: texts.map { $0! }, types: types, merges: merges,
                                 model: .bytePairEncoding, pre: .gpt2)
        tokenizer = try Tokenizer(spec: spec)
        self.vocabularySize = vocabularySize
        self.noTimestamps = noTimestamps
        endOfText = try id("<|endoftext|>")
        startOfTranscript = try id("<|startoftranscript|>")
        startOfPrevious = try id("<|startofprev|>")
        startOfLM = try id("<|startoflm|>")
        transcribe = try id("<|transcribe|>")
        translate = try id("<|translate|>")
        if let nospeech = try? id("<|nospeech|>") {
            noSpeech = nospeech
        } else {
            noSpeech = try id("<|nocaptions|>")
        }
        // The language tokens sit between <|startoftranscript|> and <|translate|>.
        guard startOfTranscript < translate else {
            throw .missingMetadata(key: "<|translate|> after <|startoftranscript|> (the language tokens lie between them)")
        }
        var languages: [Int32: String] = [:]
        for i in (startOfTranscript + 1)..<translate {
            let text = texts[Int(i)]!
            if text.hasPrefix("<|"), text.hasSuffix("|>") { languages[i] = String(text.dropFirst(2).dropLast(2)) }
        }
        self.languages = languages
        isMultilingual = vocabularySize >= 51865
    }

    /// Loads `tokenizer.json` from `path`.
    package convenience init(path: String, vocabularySize: Int) throws(TokenizerError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .missingMetadata(key: "file \(path)") }
        try self.init(json: data, vocabularySize: vocabularySize)
    }

    /// Token id of a language code ("en"), nil when the model does not know it.
    package func languageToken(_ code: String) -> Int32? { languages.first { $0.value == code }?.key }

    /// Text tokens of `text` (special-token text is not parsed).
    package func encode(_ text: String) -> [Int32] { tokenizer.encode(text, addBOS: false, parseSpecial: false) }

    /// The text of the tokens below `<|endoftext|>`; special and timestamp tokens are skipped.
    package func decode(_ ids: [Int32]) -> String { tokenizer.decode(ids.filter { $0 < endOfText }) }

    /// Whether `id` is a timestamp token.
    package func isTimestamp(_ id: Int32) -> Bool { id >= timestampBegin }

    /// `<|startoftranscript|>`, then for multilingual models the language and task tokens.
    package func startSequence(language: String?, translate: Bool = false) -> [Int32] {
        guard isMultilingual else { return [startOfTranscript] }
        let lang = language.flatMap(languageToken) ?? languageToken("en") ?? startOfTranscript + 1
        return [startOfTranscript, lang, translate ? self.translate : transcribe]
    }

    /// Tokens Whisper suppresses so it does not write speaker tags, music symbols or
    /// bracketed captions: the first token of each symbol below, with and without a leading
    /// space, when it is a single token (always for the U+2640…U+267F musical symbols, whose
    /// 3-byte UTF-8 forms share their first token), plus " -" and " '" (allowed inside words,
    /// not at their start). The rule of OpenAI whisper's `non_speech_tokens`.
    package func nonSpeechTokens() -> [Int32] {
        var symbols = "\"#()*+/:;<=>@[\\]^_`{|}~「」『』".map { String($0) }
        symbols += "<< >> <<< >>> -- --- -( -[ (' (\" (( )) ((( ))) [[ ]] {{ }} ♪♪ ♪♪♪".split(separator: " ").map(String.init)
        let musical = "♩♪♫♬♭♮♯".map { String($0) }
        var result = Set<Int32>()
        for text in [" -", " '"] { if let first = encode(text).first { result.insert(first) } }
        for symbol in symbols + musical {
            for tokens in [encode(symbol), encode(" " + symbol)] where tokens.count == 1 || musical.contains(symbol) {
                if let first = tokens.first { result.insert(first) }
            }
        }
        return result.sorted()
    }
}
