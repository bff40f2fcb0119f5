#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Python's float formatting: `repr` (shortest round-trip digits, exponent form outside
/// 1e-4 ≤ |x| < 1e16, at least two exponent digits) and `round(x, n)` (correctly rounded,
/// ties to even on the exact binary value).
enum PythonFloat {
    /// `repr(x)` / `str(x)` for a Python float.
    static func repr(_ x: Double) -> String {
        if x.isNaN { return "nan" }
        if x.isInfinite { return x < 0 ? "-inf" : "inf" }
        let sign = x.sign == .minus ? "-" : ""
        let (digits, pointPosition) = shortestDigits(abs(x))
        if digits.isEmpty { return sign + "0.0" }
        // Python: exponent form when the decimal point is more than 16 places right of the
        // first digit or 4+ places left of it.
        if pointPosition > 16 || pointPosition < -3 {
            let exponent = pointPosition - 1
            var mantissa = String(digits.first!)
            if digits.count > 1 { mantissa += "." + digits.dropFirst() }
            let e = abs(exponent) < 10 ? "0\(abs(exponent))" : "\(abs(exponent))"
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + e
        }
        if pointPosition <= 0 { return sign + "0." + String(repeating: "0", count: -pointPosition) + digits }
        if pointPosition >= digits.count {
            return sign + digits + String(repeating: "0", count: pointPosition - digits.count) + ".0"
        }
        let cut = digits.index(digits.startIndex, offsetBy: pointPosition)
        return sign + digits[..<cut] + "." + digits[cut...]
    }

    /// The shortest round-trip significant digits of a finite non-negative `x` (no leading or
    /// trailing zeros) and where the decimal point goes: x = 0.DIGITS × 10^pointPosition.
    /// Swift's `description` already prints the shortest round-trip digits; only the layout
    /// differs from Python's.
    static func shortestDigits(_ x: Double) -> (String, Int) {
        let text = x.description
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = text[..<e]
            exponent = Int(text[text.index(after: e)...]) ?? 0
        }
        let intPart = mantissa.split(separator: ".", omittingEmptySubsequences: false).first ?? ""
        var all = String(mantissa.filter { $0 != "." })
        var point = intPart.count + exponent
        while all.first == "0" {
            all.removeFirst()
            point -= 1
        }
        while all.last == "0" { all.removeLast() }
        return (all, all.isEmpty ? 0 : point)
    }

    /// `round(x, ndigits)` for a float.
    static func round(_ x: Double, _ ndigits: Int) -> Double {
        guard x.isFinite else { return x }
        if ndigits <= 0 || ndigits > 300 {
            if ndigits > 300 { return x }
            var scale = 1.0
            for _ in 0..<(-ndigits) { scale *= 10 }
            return (x / scale).rounded(.toNearestOrEven) * scale
        }
        let text = format(x, spec: "%.\(ndigits)f")
        return Double(text) ?? x
    }

    /// `snprintf` with one double argument (correctly rounded, like Python's own formatting).
    static func format(_ x: Double, spec: String) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        let n = withVaList([x]) { vsnprintf(&buffer, buffer.count, spec, $0) }
        if n >= buffer.count {
            buffer = [CChar](repeating: 0, count: Int(n) + 1)
            _ = withVaList([x]) { vsnprintf(&buffer, buffer.count, spec, $0) }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
