import Foundation

/// BERT text normalization and word splitting, the steps before WordPiece.
///
/// Behaviour of Hugging Face tokenizers' `BertNormalizer` followed by `BertPreTokenizer`
/// (the same rules as Google BERT's `BasicTokenizer`), applied code point by code point so each
/// output scalar remembers which input scalar it came from:
/// 1. clean: drop U+0000, U+FFFD and "other" code points (categories Cc, Cf, Cn, Co, Cs, except
///    tab, LF and CR); every whitespace code point becomes a space;
/// 2. CJK ideographs get a space on each side, so each becomes its own word;
/// 3. strip accents: canonical decomposition (NFD), then drop nonspacing marks (category Mn);
/// 4. lower-case (full Unicode mapping);
/// 5. split on whitespace (dropped) and punctuation (ASCII punctuation or categories P*; each is
///    a word of its own).
/// Accents are stripped before lower-casing, as the reference does, so "İ" becomes "i".
package struct WordPieceNormalizer: Sendable, Equatable {
    package var lowercase: Bool
    package var stripAccents: Bool
    package var splitCJK: Bool
    package var cleanText: Bool

    /// BERT-uncased defaults: everything on (`strip_accents: null` follows `lowercase`).
    package init(lowercase: Bool = true, stripAccents: Bool? = nil, splitCJK: Bool = true, cleanText: Bool = true) {
        self.lowercase = lowercase
        self.stripAccents = stripAccents ?? lowercase
        self.splitCJK = splitCJK
        self.cleanText = cleanText
    }

    /// One word after normalization: its scalars, and for each the index of the input scalar it
    /// came from (a decomposition or case mapping can turn one input scalar into several).
    package struct Word: Sendable, Equatable {
        package var scalars: [Unicode.Scalar] = []
        package var sources: [Int] = []
    }

    /// The words of `input` (indices in `sources` count from `input.startIndex` = 0).
    package func words(_ input: [Unicode.Scalar]) -> [Word] {
        var words: [Word] = []
        var current = Word()
        func flush() {
            if !current.scalars.isEmpty { words.append(current) }
            current = Word()
        }
        func emit(_ c: Unicode.Scalar, from i: Int) {
            if Self.isWhitespace(c) {
                flush()
            } else if Self.isPunctuation(c) {
                flush()
                words.append(Word(scalars: [c], sources: [i]))
            } else {
                current.scalars.append(c)
                current.sources.append(i)
            }
        }
        for (i, c) in input.enumerated() {
            if cleanText {
                if c.value == 0 || c.value == 0xFFFD || Self.isOther(c) { continue }
            }
            if splitCJK && Self.isCJK(c.value) {
                flush()
                words.append(Word(scalars: [c], sources: [i]))
                continue
            }
            if c.isASCII {
                // The common case: no decomposition, and ASCII lower-casing is one scalar.
                let v = c.value
                emit(lowercase && v >= 65 && v <= 90 ? Unicode.Scalar(v + 32)! : c, from: i)
                continue
            }
            for d in stripAccents ? Self.decomposed(c) : [c] {
                if stripAccents && d.properties.generalCategory == .nonspacingMark { continue }
                if lowercase {
                    for l in d.properties.lowercaseMapping.unicodeScalars { emit(l, from: i) }
                } else {
                    emit(d, from: i)
                }
            }
        }
        flush()
        return words
    }

    /// The canonical decomposition (NFD) of one scalar (Hangul syllables included).
    static func decomposed(_ c: Unicode.Scalar) -> [Unicode.Scalar] {
        Array(String(Character(c)).decomposedStringWithCanonicalMapping.unicodeScalars)
    }

    /// Whitespace as the reference sees it: tab, LF, CR and the `White_Space` property.
    static func isWhitespace(_ c: Unicode.Scalar) -> Bool {
        c == " " || c == "\t" || c == "\n" || c == "\r" || c.properties.isWhitespace
    }

    /// Code points the cleaning step drops: general categories Cc, Cf, Cn, Co, Cs, except the
    /// whitespace controls (which become spaces).
    static func isOther(_ c: Unicode.Scalar) -> Bool {
        if c == "\t" || c == "\n" || c == "\r" { return false }
        if c.isASCII { return c.value < 0x20 || c.value == 0x7F }
        switch c.properties.generalCategory {
        case .control, .format, .unassigned, .privateUse, .surrogate: return true
        default: return false
        }
    }

    /// ASCII punctuation (which includes symbols such as `$+<=>^`|~`) or a Unicode P* category.
    package static func isPunctuation(_ c: Unicode.Scalar) -> Bool {
        let v = c.value
        if v < 128 {
            return (v >= 33 && v <= 47) || (v >= 58 && v <= 64) || (v >= 91 && v <= 96) || (v >= 123 && v <= 126)
        }
        switch c.properties.generalCategory {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }

    /// The CJK Unified Ideographs blocks BERT splits (not Hiragana, Katakana or Hangul).
    static func isCJK(_ v: UInt32) -> Bool {
        (0x4E00...0x9FFF).contains(v) || (0x3400...0x4DBF).contains(v) || (0x20000...0x2A6DF).contains(v)
            || (0x2A700...0x2B73F).contains(v) || (0x2B740...0x2B81F).contains(v) || (0x2B920...0x2CEAF).contains(v)
            || (0xF900...0xFAFF).contains(v) || (0x2F800...0x2FA1F).contains(v)
    }
}
