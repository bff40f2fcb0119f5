import StructuredOutput

/// Building and reading JSON bodies tersely.
extension JSONValue {
    /// An object with members in the given order.
    static func make(_ pairs: [(String, JSONValue)]) -> JSONValue {
        .object(pairs.map { Member($0.0, $0.1) })
    }

    static func int(_ n: Int) -> JSONValue { .number(Double(n)) }

    var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// A whole number that fits an Int.
    var integer: Int? {
        guard case .number(let n) = self, n.rounded() == n, abs(n) < 9e15 else { return nil }
        return Int(n)
    }

    var isNull: Bool { self == .null }
}
