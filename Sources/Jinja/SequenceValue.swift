/// The Python sequence types a template can hold.
struct SequenceValue {
    /// Which Python type the items are wrapped in; it decides printing, truthiness and `len`.
    enum Kind {
        /// `list`.
        case list
        /// `tuple`.
        case tuple
        /// A generator (`select`, `map`, `unique`, … return one): always truthy, no `len`.
        case generator
        /// An iterator from `reverse`: like a generator.
        case reverseIterator
        /// `dict.keys()`, `dict.values()`, `dict.items()`.
        case keysView, valuesView, itemsView
        /// `range(…)`, with its bounds in `rangeBounds`.
        case range
    }

    var items: [Value]
    var kind: Kind
    /// A range's (start, stop, step), which its `repr` shows.
    var rangeBounds: (start: Int, stop: Int, step: Int)?

    init(_ items: [Value], kind: Kind) {
        self.items = items
        self.kind = kind
    }

    /// `range(start, stop, step)`.
    static func range(_ start: Int, _ stop: Int, _ step: Int) -> SequenceValue {
        var range = SequenceValue(stride(from: start, to: stop, by: step).map { .int($0) }, kind: .range)
        range.rangeBounds = (start, stop, step)
        return range
    }

    /// Whether Python's `len()` works on it.
    var hasLength: Bool { kind != .generator && kind != .reverseIterator }

    /// Whether it supports `x[i]` and slicing (list, tuple, range).
    var isIndexable: Bool { kind == .list || kind == .tuple || kind == .range }
}
