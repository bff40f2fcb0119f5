/// A string-keyed dictionary that remembers insertion order, like a Python `dict`.
/// Setting an existing key keeps its position.
package struct JinjaObject: Sendable, Equatable {
    /// Keys and values in insertion order.
    package private(set) var entries: [(key: String, value: JinjaValue)]
    private var index: [String: Int]

    /// An empty object.
    package init() {
        entries = []
        index = [:]
    }

    /// An object from pairs in order; a repeated key keeps its first position and last value.
    package init(_ pairs: [(String, JinjaValue)]) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }

    /// The keys in order.
    package var keys: [String] { entries.map(\.key) }

    /// Number of entries.
    package var count: Int { entries.count }

    /// The value for `key`; assigning nil removes the key.
    package subscript(key: String) -> JinjaValue? {
        get { index[key].map { entries[$0].value } }
        set {
            if let newValue {
                if let i = index[key] {
                    entries[i].value = newValue
                } else {
                    index[key] = entries.count
                    entries.append((key, newValue))
                }
            } else if let i = index.removeValue(forKey: key) {
                entries.remove(at: i)
                for j in i..<entries.count { index[entries[j].key] = j }
            }
        }
    }

    /// Equal when the same keys map to equal values in the same order.
    package static func == (lhs: JinjaObject, rhs: JinjaObject) -> Bool {
        lhs.entries.count == rhs.entries.count
            && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}

extension JinjaObject: ExpressibleByDictionaryLiteral {
    /// Keys keep the order they are written in.
    package init(dictionaryLiteral elements: (String, JinjaValue)...) { self.init(elements) }
}
