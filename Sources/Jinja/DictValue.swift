/// A Python `dict` with string keys, in insertion order. Keys are `JinjaString`s so a key taken
/// from data stays data when a template prints it (`{% for k, v in d.items() %}{{ k }}`).
struct DictValue {
    private(set) var keys: [JinjaString] = []
    private(set) var values: [Value] = []
    private var index: [JinjaString: Int] = [:]

    init() {}

    var count: Int { keys.count }

    /// The value for `key`; setting an existing key keeps its position.
    subscript(key: JinjaString) -> Value? {
        get { index[key].map { values[$0] } }
        set {
            guard let newValue else { return }
            if let i = index[key] {
                values[i] = newValue
            } else {
                index[key] = keys.count
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    /// The value for a plain string key.
    subscript(key: String) -> Value? {
        self[JinjaString(key, origin: .template)]
    }

    /// (key, value) pairs in order.
    var entries: Zip2Sequence<[JinjaString], [Value]> { zip(keys, values) }
}
