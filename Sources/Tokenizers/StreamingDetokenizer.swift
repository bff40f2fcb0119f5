/// Turns a stream of token ids into text, emitting only complete UTF-8.
///
/// A byte-level or byte-fallback tokenizer can split one character across tokens (an emoji is
/// often four `<0xXX>` tokens). The bytes of an unfinished trailing sequence are held back until
/// a later token completes them; anything that can never become valid is emitted as U+FFFD at
/// once, so a bad byte does not stall the stream.
package struct StreamingDetokenizer {
    private let tokenizer: Tokenizer
    private let renderSpecial: Bool
    private var pending: [UInt8] = []

    /// - Parameter renderSpecial: whether control tokens show their text.
    package init(tokenizer: Tokenizer, renderSpecial: Bool = false) {
        self.tokenizer = tokenizer
        self.renderSpecial = renderSpecial
    }

    /// Adds one token and returns the text that is now complete (possibly empty).
    package mutating func append(_ id: Int32) -> String {
        pending.append(contentsOf: tokenizer.pieceBytes(id, renderSpecial: renderSpecial))
        let keep = Self.incompleteSuffixLength(pending)
        guard pending.count > keep else { return "" }
        let text = String(decoding: pending[..<(pending.count - keep)], as: UTF8.self)
        pending.removeFirst(pending.count - keep)
        return text
    }

    /// Returns whatever is held back, an unfinished sequence becoming U+FFFD, and resets.
    package mutating func flush() -> String {
        defer { pending.removeAll() }
        return String(decoding: pending, as: UTF8.self)
    }

    /// Length of a trailing lead byte plus its continuation bytes when still short of the length
    /// the lead byte announces (and only then), else 0.
    package static func incompleteSuffixLength(_ bytes: [UInt8]) -> Int {
        var continuation = 0
        var i = bytes.count - 1
        while i >= 0 && continuation < 3 && bytes[i] & 0xC0 == 0x80 {
            continuation += 1
            i -= 1
        }
        guard i >= 0 else { return 0 }
        let needed: Int
        switch bytes[i] {
        case 0xC2...0xDF: needed = 1
        case 0xE0...0xEF: needed = 2
        case 0xF0...0xF4: needed = 3
        default: return 0
        }
        return continuation < needed ? continuation + 1 : 0
    }
}
