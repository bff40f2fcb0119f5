/// Python's character classes, which jinja2's lexer and `str` methods use: `str.isspace`
/// (Unicode whitespace plus the ASCII separators `\x1c`–`\x1f`) and `\d`.
enum PythonText {
    /// `str.isspace()` for one scalar.
    static func isSpace(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x09...0x0D, 0x1C...0x20, 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000:
            return true
        default:
            return false
        }
    }

    /// An ASCII digit.
    static func isDigit(_ s: Unicode.Scalar) -> Bool { s.value >= 0x30 && s.value <= 0x39 }

    /// A character that can start an identifier.
    static func isNameStart(_ s: Unicode.Scalar) -> Bool {
        s == "_" || (s.isASCII ? (s.properties.isAlphabetic) : s.properties.isXIDStart)
    }

    /// A character that can continue an identifier.
    static func isNameContinue(_ s: Unicode.Scalar) -> Bool {
        s == "_" || (s.isASCII ? (s.properties.isAlphabetic || isDigit(s)) : s.properties.isXIDContinue)
    }

    /// Python's `str.isprintable()` for one scalar, approximated by general category: controls,
    /// formats, separators other than space, surrogates and unassigned are not printable.
    static func isPrintable(_ s: Unicode.Scalar) -> Bool {
        if s == " " { return true }
        switch s.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator, .spaceSeparator:
            return false
        default:
            return true
        }
    }
}
