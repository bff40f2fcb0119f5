/// Decodes the escapes of a template string literal as jinja2 does (Python's `unicode-escape`
/// codec): `\\ \' \" \a \b \f \n \r \t \v`, octal `\ooo`, `\xhh`, `\uXXXX`, `\UXXXXXXXX`, and a
/// backslash before a newline removes both. Unknown escapes keep the backslash.
enum StringLiteral {
    static func decode(_ body: String, at location: JinjaLocation) throws(JinjaError) -> String {
        guard body.unicodeScalars.contains("\\") else { return body }
        let s = Array(body.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        func hex(_ count: Int, _ name: String) throws(JinjaError) -> Unicode.Scalar {
            guard i + count <= s.count, s[i..<i + count].allSatisfy({ $0.properties.isASCIIHexDigit }),
                  let v = UInt32(String(String.UnicodeScalarView(s[i..<i + count])), radix: 16)
            else { throw .syntax(message: "truncated \\\(name) escape", at: location) }
            guard let scalar = Unicode.Scalar(v) else {
                throw .syntax(message: "illegal Unicode character", at: location)
            }
            i += count
            return scalar
        }
        while i < s.count {
            let c = s[i]
            i += 1
            guard c == "\\", i < s.count else { out.append(c); continue }
            let e = s[i]
            i += 1
            switch e {
            case "\n": break
            case "\\": out.append("\\")
            case "'": out.append("'")
            case "\"": out.append("\"")
            case "a": out.append("\u{07}")
            case "b": out.append("\u{08}")
            case "f": out.append("\u{0C}")
            case "n": out.append("\n")
            case "r": out.append("\r")
            case "t": out.append("\t")
            case "v": out.append("\u{0B}")
            case "x": out.append(try hex(2, "xXX"))
            case "u": out.append(try hex(4, "uXXXX"))
            case "U": out.append(try hex(8, "UXXXXXXXX"))
            case "0"..."7":
                var v = e.value - 0x30
                var n = 1
                while n < 3, i < s.count, ("0"..."7").contains(s[i]) {
                    v = v * 8 + s[i].value - 0x30
                    i += 1
                    n += 1
                }
                out.append(Unicode.Scalar(v) ?? "\u{FFFD}")
            case "N": throw .unsupported(construct: "\\N{…} escape in a string literal", at: location)
            default:
                out.append("\\")
                out.append(e)
            }
        }
        return String(out)
    }
}
