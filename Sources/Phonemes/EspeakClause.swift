/// One clause as espeak-ng phonemizes it: IPA phonemes plus the punctuation that ended it.
package struct EspeakClause: Sendable, Equatable {
    /// The source text of the clause (terminator included, surrounding spaces trimmed).
    package var text: String
    /// IPA phonemes, words separated by spaces, language-switch flags such as `(fr)` removed.
    package var phonemes: String
    /// The punctuation that ended the clause.
    package var terminator: ClauseTerminator
    /// Whether a sentence ends with this clause.
    package var endsSentence: Bool
    /// UTF-8 offset in the phonemized text just past this clause's source (spaces included):
    /// the next clause starts there, so text still being written can be cut at a clause.
    package var sourceEnd: Int

    package init(text: String, phonemes: String, terminator: ClauseTerminator, endsSentence: Bool, sourceEnd: Int = 0) {
        self.text = text
        self.phonemes = phonemes
        self.terminator = terminator
        self.endsSentence = endsSentence
        self.sourceEnd = sourceEnd
    }
}

/// The punctuation that ends a clause, as Piper's espeak-ng fork reports it
/// (`espeak_TextToPhonemesWithTerminator`): Piper keeps it in the phonemes, because the voices
/// were trained with it and it shapes the prosody.
package enum ClauseTerminator: Sendable, Equatable {
    case period, question, exclamation, comma, colon, semicolon
    /// End of text, or a clause espeak cut for length.
    case none

    /// The character Piper appends to the clause's phonemes (nothing for `.none`).
    package var phoneme: String {
        switch self {
        case .period: "."
        case .question: "?"
        case .exclamation: "!"
        case .comma: ","
        case .colon: ":"
        case .semicolon: ";"
        case .none: ""
        }
    }

    /// Full stops, questions and exclamations end a sentence; the others continue it.
    package var endsSentence: Bool { self == .period || self == .question || self == .exclamation }

    /// The terminator of a clause whose source text is `clause`. Debian's espeak-ng 1.51 lacks
    /// the fork's terminator call, so it is read back from the text espeak consumed: the last
    /// punctuation before trailing spaces and closing quotes/brackets. Ellipses and dashes
    /// count as semicolons, as the fork normalizes them.
    package init(clause: Substring) {
        var tail = clause
        while let last = tail.last, last.isWhitespace || Self.closers.contains(last) { tail.removeLast() }
        if tail.hasSuffix("...") || tail.hasSuffix("…") || tail.hasSuffix("—") || tail.hasSuffix("–") {
            self = .semicolon
            return
        }
        switch tail.last {
        case ".": self = .period
        case "?": self = .question
        case "!": self = .exclamation
        case ",": self = .comma
        case ":": self = .colon
        case ";": self = .semicolon
        default: self = .none
        }
    }

    private static let closers: Set<Character> = ["\"", "'", "”", "’", ")", "]", "}", "»"]
}
