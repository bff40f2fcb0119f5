/// GPT-2's reversible byte → code point map, which lets byte-level BPE vocabularies store every
/// byte as a printable character.
///
/// Bytes `!`…`~`, `¡`…`¬` and `®`…`ÿ` map to themselves; the remaining 68 bytes (controls, space,
/// DEL, NBSP, soft hyphen…) map in increasing order to U+0100, U+0101, … — so a space is `Ġ`
/// (U+0120) and a newline `Ċ` (U+010A).
package enum ByteLevelAlphabet {
    /// Code point of each byte (256 entries).
    package static let scalarOfByte: [UInt32] = {
        var map = [UInt32](repeating: 0, count: 256)
        var next: UInt32 = 256
        for b in 0..<256 {
            let printable = (0x21...0x7E).contains(b) || (0xA1...0xAC).contains(b) || (0xAE...0xFF).contains(b)
            if printable {
                map[b] = UInt32(b)
            } else {
                map[b] = next
                next += 1
            }
        }
        return map
    }()

    /// UTF-8 of each byte's code point: what a one-byte symbol looks like in the vocabulary.
    static let utf8OfByte: [[UInt8]] = scalarOfByte.map { Array(String(Character(Unicode.Scalar($0)!)).utf8) }

    /// Inverse map, code point → byte, for code points below 0x144; nil elsewhere.
    static func byte(of scalar: UInt32) -> UInt8? {
        guard scalar < UInt32(inverse.count), inverse[Int(scalar)] >= 0 else { return nil }
        return UInt8(inverse[Int(scalar)])
    }

    private static let inverse: [Int16] = {
        var inverse = [Int16](repeating: -1, count: 0x144)
        for (b, s) in scalarOfByte.enumerated() { inverse[Int(s)] = Int16(b) }
        return inverse
    }()

    /// Decodes a vocabulary string back to raw bytes. A code point outside the alphabet is kept as
    /// its own UTF-8 (llama.cpp writes an `[UNK_BYTE_…]` marker there; no real vocabulary has one).
    static func decode(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        for scalar in String(decoding: text, as: UTF8.self).unicodeScalars {
            if let b = byte(of: scalar.value) {
                out.append(b)
            } else {
                out.append(contentsOf: String(scalar).utf8)
            }
        }
        return out
    }
}
