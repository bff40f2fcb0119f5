import Foundation
import StructuredOutput

/// Ollama's `keep_alive` as a request carries it: a number of seconds, or a Go duration string
/// ("5m", "1h30m", "90s", "0", "-1m"), read into seconds with Ollama's signs (the form the
/// public API's `keepAliveSeconds` takes): positive keeps the model that long once idle, 0
/// unloads it when the request ends, negative keeps it until memory is needed.
package struct OllamaKeepAlive: Sendable, Equatable {
    package var seconds: Double

    package init(seconds: Double) { self.seconds = seconds }

    /// Nil for an absent or null value (the runtime's default applies); 400 naming `keep_alive`
    /// for anything else that is not a duration.
    package init?(_ value: JSONValue?) throws(ServerError) {
        switch value {
        case nil, .null?: return nil
        case .number(let n)? where n.isFinite: seconds = n
        case .string(let text)?:
            guard let parsed = Self.parse(text) else {
                throw .invalidRequest("'keep_alive' must be a duration such as \"5m\", \"1h30m\" or \"0\", or seconds; got \"\(text.prefix(40))\"",
                                      param: "keep_alive")
            }
            seconds = parsed
        default:
            throw .invalidRequest("'keep_alive' must be a duration string or a number of seconds", param: "keep_alive")
        }
        if seconds < 0 { seconds = -1 }
    }

    /// Whether the model goes as soon as the request ends.
    package var unloadsNow: Bool { seconds == 0 }

    /// Seconds in a Go duration: an optional sign, then one or more decimal numbers each with
    /// a unit (ns, us/µs, ms, s, m, h); "0" alone, and a bare number of seconds, are accepted.
    static func parse(_ text: String) -> Double? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        var sign = 1.0
        if let first = rest.first, first == "-" || first == "+" {
            sign = first == "-" ? -1 : 1
            rest = rest.dropFirst()
        }
        if let bare = Double(rest), bare.isFinite, rest.allSatisfy({ $0.isNumber || $0 == "." }) { return sign * bare }
        guard !rest.isEmpty else { return nil }
        var total = 0.0
        while !rest.isEmpty {
            let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
            guard !number.isEmpty, let value = Double(number) else { return nil }
            rest = rest.dropFirst(number.count)
            let unitText = rest.prefix { !($0.isASCII && ($0.isNumber || $0 == ".")) }
            guard let unit = Self.units[String(unitText)] else { return nil }
            rest = rest.dropFirst(unitText.count)
            total += value * unit
        }
        return total.isFinite ? sign * total : nil
    }

    /// Seconds per unit of Go's `time.ParseDuration`.
    private static let units: [String: Double] = [
        "ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600,
    ]
}
