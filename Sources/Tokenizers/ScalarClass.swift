/// The code point classes the BPE pre-tokenizers test: `\p{L}`, `\p{N}`, `\s`.
///
/// Letter and number are Unicode general categories L* and N* (what llama.cpp's
/// `unicode_cpt_flags` hold); whitespace is the Unicode `White_Space` property. `inRange` marks a
/// real code point, so a position past the end of a chunk classifies as nothing at all, which the
/// scanners rely on exactly as llama.cpp's do.
package struct ScalarClass: OptionSet, Sendable {
    package let rawValue: UInt8

    package static let inRange = ScalarClass(rawValue: 1 << 0)
    package static let letter = ScalarClass(rawValue: 1 << 1)
    package static let number = ScalarClass(rawValue: 1 << 2)
    package static let whitespace = ScalarClass(rawValue: 1 << 3)

    package var isLetter: Bool { contains(.letter) }
    package var isNumber: Bool { contains(.number) }
    package var isWhitespace: Bool { contains(.whitespace) }
    /// `[^\s\p{L}\p{N}]`: a real code point that is none of the three.
    package var isOther: Bool { self == .inRange }

    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Classifies a code point; ASCII from a table, the rest from the standard library's Unicode data.
    package init(_ value: UInt32) {
        if value < 128 {
            self = Self.ascii[Int(value)]
        } else if let scalar = Unicode.Scalar(value) {
            self = Self.classify(scalar)
        } else {
            self = .inRange
        }
    }

    private static func classify(_ scalar: Unicode.Scalar) -> ScalarClass {
        let properties = scalar.properties
        var result: ScalarClass = .inRange
        switch properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter:
            result.insert(.letter)
        case .decimalNumber, .letterNumber, .otherNumber:
            result.insert(.number)
        default:
            break
        }
        if properties.isWhitespace { result.insert(.whitespace) }
        return result
    }

    private static let ascii: [ScalarClass] = (0..<128).map { classify(Unicode.Scalar(UInt8($0))) }
}
