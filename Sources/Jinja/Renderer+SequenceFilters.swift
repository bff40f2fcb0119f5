/// Filters over sequences: `length`, `first`, `join`, `map`, `select*`, `sort`, `unique`, ….
/// Like jinja2, `map`, `select`, `reject`, `unique`, `items` and `batch` return generators
/// (always truthy, no `length`) and `reverse` returns an iterator for lists.
extension Renderer {
    func applySequenceFilter(_ name: String, _ value: Value, _ args: CallArguments, at loc: JinjaLocation) throws(JinjaError) -> Value {
        func bind(_ parameters: [String], required: Int = 0) throws(JinjaError) -> [Value?] {
            try args.bind(name, parameters, required: required, at: loc)
        }
        switch name {
        case "length", "count":
            _ = try bind([])
            guard let n = value.length else {
                throw .typeMismatch(operation: name, message: "object of type '\(value.typeName)' has no len()", at: loc)
            }
            return .int(n)
        case "list":
            _ = try bind([])
            return .list(try value.iterate(at: loc))
        case "first":
            _ = try bind([])
            return try value.iterate(at: loc).first ?? .undefined("No first item, sequence was empty.")
        case "last":
            _ = try bind([])
            if case .sequence(let s) = value, !s.hasLength {
                throw .typeMismatch(operation: name, message: "'\(value.typeName)' object is not reversible", at: loc)
            }
            return try value.iterate(at: loc).last ?? .undefined("No last item, sequence was empty.")
        case "join":
            let bound = try bind(["d", "attribute"])
            var items = try value.iterate(at: loc)
            if let attribute = bound[1], !attribute.isNone {
                items = try items.map { (item) throws(JinjaError) in try attributePath(item, attribute, default: nil, at: loc) }
            }
            let result = JinjaString.joined(items.map(\.str), separator: bound[0]?.str ?? .empty)
            try checkSize(result.count, at: loc)
            return .string(result)
        case "reverse":
            _ = try bind([])
            switch value {
            case .string(let s): return try slice(.string(s), .none, .none, .int(-1), at: loc)
            case .sequence(let s) where !s.hasLength: return .list(s.items.reversed())
            default:
                guard let items = value.iterated else {
                    throw .invalidValue(operation: name, message: "argument must be iterable", at: loc)
                }
                return .sequence(SequenceValue(items.reversed(), kind: .reverseIterator))
            }
        case "items":
            _ = try bind([])
            if value.isUndefined { return .sequence(SequenceValue([], kind: .generator)) }
            guard case .dict(let d) = value else {
                throw .typeMismatch(operation: name, message: "Can only get item pairs from a mapping.", at: loc)
            }
            return .sequence(SequenceValue(d.entries.map { .tuple([.string($0.0), $0.1]) }, kind: .generator))
        case "dictsort":
            let bound = try bind(["case_sensitive", "by", "reverse"])
            if case .undefined(let u) = value { throw u.error(at: loc) }
            guard case .dict(let d) = value else {
                throw .typeMismatch(operation: name, message: "'\(value.typeName)' object has no attribute 'items'", at: loc)
            }
            let by = bound[1]?.str.text ?? "key"
            guard by == "key" || by == "value" else {
                throw .invalidValue(operation: name, message: "You can only sort by either \"key\" or \"value\"", at: loc)
            }
            let caseSensitive = bound[0]?.isTruthy ?? false
            let pairs: [Value] = d.entries.map { .tuple([.string($0.0), $0.1]) }
            let sorted = try stableSort(pairs, reverse: bound[2]?.isTruthy ?? false, at: loc) { pair in
                guard case .sequence(let t) = pair else { return [pair] }
                let key = t.items[by == "key" ? 0 : 1]
                return [caseSensitive ? key : Self.ignoreCase(key)]
            }
            return .list(sorted)
        case "sort":
            let bound = try bind(["reverse", "case_sensitive", "attribute"])
            let caseSensitive = bound[1]?.isTruthy ?? false
            let attributes = Self.attributeList(bound[2])
            let items = try value.iterate(at: loc)
            return .list(try stableSort(items, reverse: bound[0]?.isTruthy ?? false, at: loc) { (item) throws(JinjaError) in
                let keys = attributes.isEmpty ? [item]
                    : try attributes.map { (a) throws(JinjaError) in try attributePath(item, a, default: nil, at: loc) }
                return caseSensitive ? keys : keys.map(Self.ignoreCase)
            })
        case "unique":
            let bound = try bind(["case_sensitive", "attribute"])
            let caseSensitive = bound[0]?.isTruthy ?? false
            var seen: [Value] = []
            var out: [Value] = []
            for item in try value.iterate(at: loc) {
                var key = try attributeOrItem(item, bound[1], at: loc)
                if !caseSensitive { key = Self.ignoreCase(key) }
                if case .dict = key { throw .typeMismatch(operation: name, message: "unhashable type: 'dict'", at: loc) }
                if case .sequence(let s) = key, s.kind == .list {
                    throw .typeMismatch(operation: name, message: "unhashable type: 'list'", at: loc)
                }
                if !seen.contains(where: { $0.pythonEquals(key) }) {
                    seen.append(key)
                    out.append(item)
                }
            }
            return .sequence(SequenceValue(out, kind: .generator))
        case "min", "max":
            let bound = try bind(["case_sensitive", "attribute"])
            let caseSensitive = bound[0]?.isTruthy ?? false
            var best: (item: Value, key: Value)?
            for item in try value.iterate(at: loc) {
                var key = try attributeOrItem(item, bound[1], at: loc)
                if !caseSensitive { key = Self.ignoreCase(key) }
                guard let current = best else { best = (item, key); continue }
                // Python's min/max ask `key < best` (max: `key > best`).
                if try Value.compare(key, name == "min" ? .less : .greater, current.key, at: loc) { best = (item, key) }
            }
            return best?.item ?? .undefined("No aggregated item, sequence was empty.")
        case "sum":
            let bound = try bind(["attribute", "start"])
            var total = bound[1] ?? .int(0)
            if case .string = total {
                throw .typeMismatch(operation: name, message: "sum() can't sum strings [use ''.join(seq) instead]", at: loc)
            }
            for item in try value.iterate(at: loc) {
                let term = try attributeOrItem(item, bound[0], at: loc)
                total = try binary(.add, total, term, at: loc)
            }
            return total
        case "batch":
            let bound = try bind(["linecount", "fill_with"], required: 1)
            guard let size = Self.index(bound[0]!), size > 0 else {
                throw .invalidValue(operation: name, message: "batch size must be a positive integer", at: loc)
            }
            let items = try value.iterate(at: loc)
            var batches: [Value] = []
            for start in stride(from: 0, to: items.count, by: size) {
                var chunk = Array(items[start..<min(start + size, items.count)])
                if let fill = bound[1], !fill.isNone, chunk.count < size {
                    chunk += Array(repeating: fill, count: size - chunk.count)
                }
                batches.append(.list(chunk))
            }
            return try checkDepth(.sequence(SequenceValue(batches, kind: .generator)), at: loc)
        case "map", "select", "reject", "selectattr", "rejectattr":
            return try mapOrSelect(name, value, args, at: loc)
        default:
            if Self.filterNames.contains(name) { throw .unsupported(construct: "filter '\(name)'", at: loc) }
            throw .unknownFilter(name: name, at: loc)
        }
    }

    /// jinja2's `ignore_case`: strings compare lowercased.
    static func ignoreCase(_ v: Value) -> Value {
        if case .string(let s) = v { return .string(s.mapRuns { mapScalars($0, \.lowercaseMapping) }) }
        return v
    }

    /// `"a.b,c"` → the attribute paths `a.b` and `c` (jinja2's multi-attribute getter).
    static func attributeList(_ v: Value?) -> [Value] {
        guard let v, !v.isNone else { return [] }
        guard case .string(let s) = v else { return [v] }
        return s.split(",").map { .string($0) }
    }

    /// jinja2's `make_attrgetter`: a dotted path, each part looked up with `getitem`
    /// (digit parts as integers); undefined results become `default` when one is given.
    func attributePath(_ item: Value, _ path: Value, default fallback: Value?, at loc: JinjaLocation) throws(JinjaError) -> Value {
        var parts: [Value] = [path]
        if case .string(let s) = path {
            parts = s.split(".").map { part in
                part.text.unicodeScalars.allSatisfy(PythonText.isDigit) && !part.text.isEmpty ? .int(Int(part.text) ?? 0) : .string(part)
            }
        }
        var current = item
        for part in parts {
            current = try self.item(of: current, part, at: loc)
            if let fallback, current.isUndefined { current = fallback }
        }
        return current
    }

    /// `item`'s attribute path `attribute`, or `item` itself when no attribute is given.
    func attributeOrItem(_ item: Value, _ attribute: Value?, at loc: JinjaLocation) throws(JinjaError) -> Value {
        guard let attribute, !attribute.isNone else { return item }
        return try attributePath(item, attribute, default: nil, at: loc)
    }

    /// A stable sort by Python `<` on key lists; `reverse` keeps equal items in order, as
    /// Python's `sorted(reverse=True)` does.
    func stableSort(_ items: [Value], reverse: Bool, at loc: JinjaLocation,
                    key: (Value) throws(JinjaError) -> [Value]) throws(JinjaError) -> [Value] {
        var keyed: [(key: Value, item: Value)] = []
        for item in items { keyed.append((.list(try key(item)), item)) }
        var failure: JinjaError?
        // Swift's sort is stable.
        keyed.sort { a, b in
            guard failure == nil else { return false }
            let (x, y) = reverse ? (b.key, a.key) : (a.key, b.key)
            do throws(JinjaError) {
                return try Value.compare(x, .less, y, at: loc)
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        return keyed.map(\.item)
    }
}
