/// The rendered bytes of every token, computed once (llama.cpp keeps the same cache).
///
/// Control, unknown and user-defined tokens render their text; normal tokens decode the GPT-2
/// byte alphabet (BPE) or turn `▁` back into spaces (SentencePiece); byte tokens `<0xXX>` render
/// that byte; unused and undefined tokens render nothing.
struct TokenPieces: Sendable {
    private let storage: [UInt8]
    private let offsets: [Int32]  // (count + 1)

    init(table: TokenTable, attributes: [TokenAttributes], model: TokenizerModel) {
        var storage: [UInt8] = []
        var offsets: [Int32] = [0]
        offsets.reserveCapacity(table.count + 1)
        for id in 0..<table.count {
            let text = table.text(Int32(id))
            let attr = attributes[id]
            if !attr.isDisjoint(with: [.control, .unknown, .userDefined]) {
                storage.append(contentsOf: text)
            } else if attr.contains(.normal) {
                switch model {
                case .bytePairEncoding: storage.append(contentsOf: ByteLevelAlphabet.decode(text))
                case .sentencePiece: Self.appendUnescaped(text, to: &storage)
                }
            } else if attr.contains(.byte), let b = Self.byteValue(text) {
                storage.append(b)
            }
            offsets.append(Int32(storage.count))
        }
        self.storage = storage
        self.offsets = offsets
    }

    func bytes(_ id: Int32) -> ArraySlice<UInt8> {
        storage[Int(offsets[Int(id)])..<Int(offsets[Int(id) + 1])]
    }

    /// `▁` (E2 96 81) → space.
    private static func appendUnescaped(_ text: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var i = text.startIndex
        while i < text.endIndex {
            if text[i] == 0xE2, i + 2 < text.endIndex, text[i + 1] == 0x96, text[i + 2] == 0x81 {
                out.append(0x20)
                i += 3
            } else {
                out.append(text[i])
                i += 1
            }
        }
    }

    /// The XX of `<0xXX>`.
    private static func byteValue(_ text: UnsafeBufferPointer<UInt8>) -> UInt8? {
        guard text.count == 6 else { return nil }
        return UInt8(String(decoding: text.dropFirst(3).prefix(2), as: UTF8.self), radix: 16)
    }
}
