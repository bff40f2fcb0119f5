import Tokenizers

/// Hand-made vocabularies small enough to reason about token by token.
enum Tiny {
    /// Byte-level BPE with every byte's alphabet character as a token, plus `extra` tokens.
    static func bpe(extra: [String], merges: [String], pre: PreTokenizer = .gpt2,
                    control: [String] = [], userDefined: [String] = []) throws -> Tokenizer {
        let alphabet = ByteLevelAlphabet.scalarOfByte.map { String(Character(Unicode.Scalar($0)!)) }
        let tokens = control + userDefined + alphabet + extra
        let types = control.map { _ in Int32(3) } + userDefined.map { _ in Int32(4) } + tokens.dropFirst(control.count + userDefined.count).map { _ in Int32(1) }
        return try Tokenizer(spec: TokenizerSpec(
            tokens: tokens, types: types, merges: merges, model: .bytePairEncoding, pre: pre))
    }

    /// SentencePiece with the 256 `<0xXX>` byte tokens first, then `pieces` with their scores.
    static func spm(pieces: [(String, Float)], addSpacePrefix: Bool = false,
                    control: [String] = [], userDefined: [String] = []) throws -> Tokenizer {
        let bytes = (0..<256).map { "<0x" + String($0, radix: 16, uppercase: true).leftPadded(2) + ">" }
        let tokens = control + userDefined + bytes + pieces.map(\.0)
        let types = control.map { _ in Int32(3) } + userDefined.map { _ in Int32(4) }
            + bytes.map { _ in Int32(6) } + pieces.map { _ in Int32(1) }
        let scores = [Float](repeating: 0, count: control.count + userDefined.count + 256) + pieces.map(\.1)
        return try Tokenizer(spec: TokenizerSpec(
            tokens: tokens, scores: scores, types: types, model: .sentencePiece, pre: .none,
            addSpacePrefix: addSpacePrefix))
    }

    /// Token texts of an encoding, for readable expectations.
    static func texts(_ tokenizer: Tokenizer, _ ids: [Int32]) -> [String] {
        ids.map { tokenizer.tokenText($0) ?? "?" }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
