/// Strict UTF-8 validation (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
///
/// Exists because the standard library's `String(validating:as:)` goes through generic metadata
/// lookups per call, which dominated parsing a 262,144-entry vocabulary; validating here and then
/// building with `String(decoding:as:)` (which takes a specialised fast path) is several times faster.
enum UTF8Validator {
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            let lead = bytes[i]
            if lead < 0x80 { i += 1; continue }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0          // no overlong 3-byte forms
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F          // no UTF-16 surrogates
            case 0xF0: length = 4; lower = 0x90          // no overlong 4-byte forms
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F          // nothing above U+10FFFF
            default: return false
            }
            guard n - i >= length else { return false }
            let second = bytes[i + 1]
            guard second >= lower, second <= upper else { return false }
            for k in 2..<max(length, 2) where bytes[i + k] & 0xC0 != 0x80 { return false }
            i += length
        }
        return true
    }
}
