/// jinja2's `LoopContext`, the `loop` variable inside a `for` body. A class because the loop
/// advances it and `loop.changed()` remembers the previous call's arguments.
///
/// With an `if` filter, jinja2 iterates a generator: an item's filter runs only when the loop
/// reaches it, or earlier when `loop.last` / `loop.nextitem` peek ahead, or all at once when
/// `loop.length` / `loop.revindex` need the count. Filters can see namespace changes made by
/// earlier iterations, so this keeps that laziness.
final class LoopState {
    private var pending: ArraySlice<Value>
    private let accept: ((Value) throws(JinjaError) -> Bool)?
    /// Items that passed the filter so far, in order.
    private var accepted: [Value] = []
    /// The current item's position among accepted items.
    var index0 = 0
    let depth0: Int
    var lastChanged: [Value]?

    /// A loop over `items`, keeping only those `accept` passes (evaluated lazily).
    init(items: [Value], depth0: Int, accept: ((Value) throws(JinjaError) -> Bool)?) {
        self.pending = items[...]
        self.accept = accept
        self.depth0 = depth0
        if accept == nil {
            accepted = items
            pending = []
        }
    }

    /// The accepted item at `i`, running filters up to it; nil past the end.
    func item(at i: Int) throws(JinjaError) -> Value? {
        while accepted.count <= i, let next = pending.first {
            pending = pending.dropFirst()
            if try accept?(next) ?? true { accepted.append(next) }
        }
        return i < accepted.count ? accepted[i] : nil
    }

    /// The number of accepted items, running every remaining filter.
    func length() throws(JinjaError) -> Int {
        _ = try item(at: .max - 1)
        return accepted.count
    }

    /// The attribute `name` of `loop`, or nil if `LoopContext` has none.
    func attribute(_ name: String) throws(JinjaError) -> Value? {
        switch name {
        case "index": return .int(index0 + 1)
        case "index0": return .int(index0)
        case "revindex": return .int(try length() - index0)
        case "revindex0": return .int(try length() - index0 - 1)
        case "first": return .bool(index0 == 0)
        case "last": return .bool(try item(at: index0 + 1) == nil)
        case "length": return .int(try length())
        case "depth": return .int(depth0 + 1)
        case "depth0": return .int(depth0)
        case "previtem":
            return index0 > 0 ? accepted[index0 - 1] : .undefined("there is no previous item")
        case "nextitem":
            return try item(at: index0 + 1) ?? .undefined("there is no next item")
        case "cycle", "changed": return .callable(.method(.loop(self), name))
        default: return nil
        }
    }

    /// What `repr` shows: the position and, if already known, the length.
    var description: String { "<LoopContext \(index0 + 1)/\(pending.isEmpty ? String(accepted.count) : "?")>" }
}
