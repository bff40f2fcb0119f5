/// Text ↔ token ids for a GGUF vocabulary, reproducing llama.cpp's `llama_tokenize` and
/// `llama_token_to_piece` exactly (byte-level BPE and SentencePiece-style models; reference
/// ggml-org/llama.cpp@00ad355e `src/llama-vocab.cpp`).
///
/// Immutable after `init` and safe to share; the only mutable state is the BPE word cache,
/// which sits behind a mutex.
package final class Tokenizer: Sendable {
    /// The tokenization algorithm.
    package let model: TokenizerModel
    /// The word split of a byte-level BPE model (`.none` for SentencePiece).
    package let preTokenizer: PreTokenizer
    /// Beginning-of-sequence token, if the vocabulary has one.
    package let bosId: Int32?
    /// End-of-sequence token, if the vocabulary has one.
    package let eosId: Int32?
    /// End-of-turn token (metadata, else found by text as llama.cpp does).
    package let eotId: Int32?
    /// Padding token, if any.
    package let padId: Int32?
    /// Unknown token, if any.
    package let unkId: Int32?
    /// Whether `encode` with the model default prepends BOS.
    package let addsBOS: Bool
    /// Whether `encode` with the model default appends EOS.
    package let addsEOS: Bool
    /// SentencePiece: a space is prefixed to text at the start or after a special token.
    package let addsSpacePrefix: Bool
    /// Tokens that end generation (`llama_vocab_is_eog`).
    package let endOfGenerationIds: Set<Int32>
    /// Raw `tokenizer.chat_template` text, if any.
    package let chatTemplateText: String?

    let table: TokenTable
    let attributes: [TokenAttributes]
    private let pieces: TokenPieces
    private let bpe: BytePairEncoder?
    private let spm: SentencePieceEncoder?
    private let partition: SpecialTokenPartition

    /// Number of tokens in the vocabulary.
    package var vocabularySize: Int { table.count }

    /// Validates `spec` and builds the lookup tables (about 0.1 s for a 262k vocabulary).
    package init(spec: TokenizerSpec) throws(TokenizerError) {
        let n = spec.tokens.count
        guard n > 0 else { throw .emptyVocabulary }
        if let scores = spec.scores, scores.count != n {
            throw .lengthMismatch(field: "scores", expected: n, actual: scores.count)
        }
        if let types = spec.types, types.count != n {
            throw .lengthMismatch(field: "types", expected: n, actual: types.count)
        }
        let roles: [(String, Int32?)] = [
            ("bos", spec.bosId), ("eos", spec.eosId), ("eot", spec.eotId), ("eom", spec.eomId),
            ("pad", spec.padId), ("unk", spec.unkId),
        ]
        for case let (field, id?) in roles where id < 0 || Int(id) >= n {
            throw .tokenIdOutOfRange(field: field, id: id, vocabularySize: n)
        }
        if spec.addBOS && spec.bosId == nil { throw .missingMetadata(key: "tokenizer.ggml.bos_token_id") }
        if spec.addEOS && spec.eosId == nil { throw .missingMetadata(key: "tokenizer.ggml.eos_token_id") }

        // llama.cpp renames empty token texts so they stay unique and visible.
        let texts = spec.tokens.enumerated().map { id, text in text.isEmpty ? "[EMPTY_\(id)]" : text }
        let table = try TokenTable(texts: texts)
        var attributes = spec.types.map { $0.map(TokenAttributes.init(ggufType:)) }
            ?? [TokenAttributes](repeating: .normal, count: n)
        let eog = EndOfGeneration(
            table: table, attributes: &attributes, eosId: spec.eosId, eotId: spec.eotId, eomId: spec.eomId)

        switch spec.model {
        case .bytePairEncoding:
            guard let merges = spec.merges else { throw .missingMerges }
            guard spec.pre != .none else { throw .unsupportedPreTokenizer(name: "none") }
            bpe = BytePairEncoder(table: table, merges: merges, wholeWordLookup: spec.pre == .llama3)
            spm = nil
        case .sentencePiece:
            bpe = nil
            spm = SentencePieceEncoder(
                table: table, scores: spec.scores ?? [Float](repeating: 0, count: n), unknownId: spec.unkId)
        }
        self.model = spec.model
        self.preTokenizer = spec.pre
        self.table = table
        self.attributes = attributes
        self.pieces = TokenPieces(table: table, attributes: attributes, model: spec.model)
        self.partition = SpecialTokenPartition(table: table, attributes: attributes)
        self.bosId = spec.bosId
        self.eosId = spec.eosId
        self.eotId = eog.endOfTurnId
        self.padId = spec.padId
        self.unkId = spec.unkId
        self.addsBOS = spec.addBOS
        self.addsEOS = spec.addEOS
        self.addsSpacePrefix = spec.addSpacePrefix
        self.endOfGenerationIds = eog.ids
        self.chatTemplateText = spec.chatTemplate
    }

    /// Tokenizes `text` as `llama_tokenize` does.
    ///
    /// - Parameters:
    ///   - addBOS: nil follows the model (llama.cpp `add_special = true`: BOS and EOS only if the
    ///     metadata asks); false adds neither; true always prepends BOS, EOS still per the model.
    ///   - parseSpecial: control-token texts in `text` become single tokens. User-defined tokens
    ///     are matched either way, as llama.cpp does.
    package func encode(_ text: String, addBOS: Bool? = nil, parseSpecial: Bool) -> [Int32] {
        encode(text, addBOS: addBOS, parseSpecial: parseSpecial, trusted: nil)
    }

    /// A rendered chat prompt's ids: control tokens are recognised only inside the template's
    /// own text, so a marker written in a message, document or tool result stays text. The rest
    /// is tokenized as one string, exactly as the whole text would be. BOS is added when the
    /// model asks for it and the template did not already write it.
    package func encode(_ prompt: RenderedPrompt) -> [Int32] {
        var addBOS: Bool?
        if let bosId, addsBOS, let first = prompt.trusted.first, first.lowerBound == 0 {
            let bos = table.text(bosId)
            let bytes = Array(prompt.text.utf8)
            if !bos.isEmpty, first.count >= bos.count, bytes.starts(with: bos) { addBOS = false }
        }
        return encode(prompt.text, addBOS: addBOS, parseSpecial: true, trusted: prompt.trusted)
    }

    private func encode(_ text: String, addBOS: Bool?, parseSpecial: Bool, trusted: [Range<Int>]?) -> [Int32] {
        let input = Array(text.utf8)
        let fragments = partition.partition(input, parseSpecial: parseSpecial, trusted: trusted, table: table)
        let prependBOS = addBOS ?? addsBOS
        let appendEOS = addBOS != false && addsEOS
        var output: [Int32] = []
        output.reserveCapacity(input.count / 3 + 2)
        if prependBOS, let bosId { output.append(bosId) }
        switch model {
        case .bytePairEncoding:
            guard let bpe else { break }
            for fragment in fragments {
                switch fragment {
                case .token(let id): output.append(id)
                case .text(let range): encodeWords(input[range], bpe: bpe, into: &output)
                }
            }
        case .sentencePiece:
            guard let spm else { break }
            var previousWasSpecial = true  // the start of the input counts as "after a special token"
            for fragment in fragments {
                switch fragment {
                case .token(let id):
                    output.append(id)
                    previousWasSpecial = true
                case .text(let range):
                    spm.encode(
                        fragment: input[range], spacePrefix: addsSpacePrefix && previousWasSpecial,
                        table: table, into: &output)
                    previousWasSpecial = false
                }
            }
        }
        if appendEOS, let eosId { output.append(eosId) }
        return output
    }

    private func encodeWords(_ bytes: ArraySlice<UInt8>, bpe: BytePairEncoder, into output: inout [Int32]) {
        // Code points with their byte offsets; fragments are whole UTF-8 sequences because they
        // were cut at the boundaries of valid UTF-8 token texts.
        var scalars: [UInt32] = []
        var offsets: [Int] = []
        scalars.reserveCapacity(bytes.count)
        offsets.reserveCapacity(bytes.count + 1)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let n = min(SentencePieceEncoder.utf8Length(bytes[i]), bytes.endIndex - i)
            var value = UInt32(bytes[i])
            if n > 1 {
                value &= UInt32(0x7F >> n)
                for k in 1..<n { value = value << 6 | UInt32(bytes[i + k] & 0x3F) }
            }
            scalars.append(value)
            offsets.append(i)
            i += n
        }
        offsets.append(bytes.endIndex)
        var start = 0
        for end in preTokenizer.wordEnds(scalars) {
            bpe.encode(word: bytes[offsets[start]..<offsets[end]], table: table, into: &output)
            start = end
        }
    }

    /// The bytes token `id` stands for (`llama_token_to_piece`). Control and unknown tokens render
    /// their text only with `renderSpecial`; an out-of-range id renders nothing.
    package func pieceBytes(_ id: Int32, renderSpecial: Bool = true) -> ArraySlice<UInt8> {
        guard id >= 0, Int(id) < table.count else { return [] }
        if !renderSpecial && attributes[Int(id)].isSpecial { return [] }
        return pieces.bytes(id)
    }

    /// Concatenated pieces as text; invalid UTF-8 becomes U+FFFD.
    package func decode(_ ids: [Int32], renderSpecial: Bool = false) -> String {
        var bytes: [UInt8] = []
        for id in ids { bytes.append(contentsOf: pieceBytes(id, renderSpecial: renderSpecial)) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The vocabulary text of `id` (`tokenizer.ggml.tokens`), e.g. `Ġworld` or `▁world`.
    package func tokenText(_ id: Int32) -> String? {
        guard id >= 0, Int(id) < table.count else { return nil }
        return String(decoding: table.text(id), as: UTF8.self)
    }

    /// The id of an exact vocabulary text.
    package func tokenId(_ text: String) -> Int32? { table.id(of: Array(text.utf8)) }

    /// Whether `id` is a control token (rendered only on request, parsed only with `parseSpecial`).
    package func isControl(_ id: Int32) -> Bool {
        id >= 0 && Int(id) < table.count && attributes[Int(id)].contains(.control)
    }

    /// Whether generation stops at `id`.
    package func isEndOfGeneration(_ id: Int32) -> Bool { endOfGenerationIds.contains(id) }
}
