/// The finite shape the grammar compiles: recursive references expanded a bounded number of
/// times and "any value" expanded to a bounded nesting. Past the bound a reference generates
/// nothing: the property that holds it becomes unwritable (the schema must let it be left out),
/// an array of it stays empty, an `anyOf` loses that alternative. The documents generated are
/// thereby a subset of the valid ones, never a superset.
extension JSONSchema {
    /// Expansions of shapes larger than this retry with one level of recursion less.
    static let expansionBudget = 4000

    func generationShape(options: Grammar.Options) throws(EngineError) -> Shape {
        guard Self.needsExpansion(shape) else { return shape }
        var depth = max(1, options.maxRecursionDepth)
        while true {
            var expander = ShapeExpander(definitions: definitions, recursionDepth: depth, anyDepth: max(0, options.maxAnyDepth),
                                         budget: Self.expansionBudget)
            let result: Shape?
            do throws(ExpansionError) {
                result = try expander.expand(shape, slot: 0)
            } catch {
                switch error {
                case .unsupported(let reason): throw reason
                case .tooLarge:
                    guard depth > 1 else {
                        throw .unsupportedSchema(path: "#", keyword: "a recursive schema too large to expand even one level")
                    }
                    depth -= 1
                    continue
                }
            }
            guard let result else {
                throw .unsupportedSchema(path: "#", keyword: "a recursive schema with no document within \(depth) levels")
            }
            return result
        }
    }

    static func needsExpansion(_ shape: Shape) -> Bool {
        switch shape {
        case .reference, .any: true
        case .object(let o): o.properties.contains { needsExpansion($0.shape) } || o.additional.map(needsExpansion) ?? false
        case .array(let items, _, _): needsExpansion(items)
        case .tuple(let prefix, let rest, _, _): prefix.contains(where: needsExpansion) || rest.map(needsExpansion) ?? false
        case .anyOf(let list): list.contains(where: needsExpansion)
        case .taggedUnion(_, let variants): variants.contains { needsExpansion(.object($0.rest)) }
        case .string, .text, .number, .integer, .range, .boolean, .null, .literal: false
        }
    }
}

enum ExpansionError: Error {
    case tooLarge
    case unsupported(EngineError)
}

struct ShapeExpander {
    typealias Shape = JSONSchema.Shape
    let definitions: [String: Shape]
    let recursionDepth: Int
    let anyDepth: Int
    var budget: Int
    private var open: [String: Int] = [:]
    /// Above zero inside an expanded reference or any value, where arrays past the nesting
    /// limit are left empty rather than refused.
    private var bounded = 0

    init(definitions: [String: Shape], recursionDepth: Int, anyDepth: Int, budget: Int) {
        self.definitions = definitions
        self.recursionDepth = recursionDepth
        self.anyDepth = anyDepth
        self.budget = budget
    }

    /// `shape` with its array nesting level `slot`; nil when it can generate nothing.
    mutating func expand(_ shape: Shape, slot: Int) throws(ExpansionError) -> Shape? {
        budget -= 1
        guard budget >= 0 else { throw .tooLarge }
        let deep = bounded > 0 && slot >= GrammarBuilder.maxArrayNesting
        switch shape {
        case .string, .text, .number, .integer, .range, .boolean, .null, .literal:
            return shape
        case .array(let items, let minItems, let maxItems):
            let inner = deep || maxItems == 0 ? nil : try expand(items, slot: slot + 1)
            guard let inner else { return minItems == 0 ? .literal([.array([])]) : nil }
            return .array(items: inner, minItems: minItems, maxItems: maxItems)
        case .tuple(let prefix, let rest, let minItems, var maxItems):
            var items: [Shape] = []
            for p in prefix.prefix(maxItems ?? prefix.count) {
                guard let e = try expand(p, slot: slot) else { break }
                items.append(e)
            }
            var tail: Shape?
            if items.count == prefix.count, let rest, !deep { tail = try expand(rest, slot: slot + 1) }
            if tail == nil { maxItems = min(maxItems ?? items.count, items.count) }
            guard minItems <= maxItems ?? Int.max else { return nil }
            return .tuple(prefix: items, rest: tail, minItems: minItems, maxItems: maxItems)
        case .object(let o):
            return try object(o, slot: slot).map(Shape.object)
        case .anyOf(let list):
            var kept: [Shape] = []
            for s in list {
                switch try expand(s, slot: slot) {
                case .anyOf(let inner)?: kept += inner
                case let e?: kept.append(e)
                case nil: break
                }
            }
            // Objects that were references when the schema was read may form a tagged union now.
            return kept.isEmpty ? nil : kept.count == 1 ? kept[0] : SchemaReader.taggedUnion(kept) ?? .anyOf(kept)
        case .taggedUnion(let key, let variants):
            var kept: [JSONSchema.Variant] = []
            for v in variants {
                if let rest = try object(v.rest, slot: slot) { kept.append(.init(tag: v.tag, rest: rest)) }
            }
            return kept.isEmpty ? nil : .taggedUnion(key: key, variants: kept)
        case .reference(let pointer):
            guard let target = definitions[pointer] else {
                throw .unsupported(.invalidSchema(path: pointer, reason: "a reference without a definition"))
            }
            let depth = open[pointer, default: 0]
            guard depth < recursionDepth else { return nil }
            open[pointer] = depth + 1
            bounded += 1
            defer {
                open[pointer] = depth
                bounded -= 1
            }
            return try expand(target, slot: slot)
        case .any:
            bounded += 1
            defer { bounded -= 1 }
            return try any(depth: anyDepth, slot: slot)
        }
    }

    private mutating func object(_ o: JSONSchema.ObjectShape, slot: Int) throws(ExpansionError) -> JSONSchema.ObjectShape? {
        var out = o
        out.properties = []
        for p in o.properties {
            if let e = try expand(p.shape, slot: slot) {
                out.properties.append(.init(p.name, e))
            } else if o.required.contains(p.name) {
                return nil
            } else {
                out.required.remove(p.name)
            }
        }
        if let a = o.additional {
            out.additional = bounded > 0 && slot >= GrammarBuilder.maxArrayNesting ? nil : try expand(a, slot: slot + 1)
        }
        return out
    }

    /// Any JSON value, containers nested at most `depth` deep.
    private mutating func any(depth: Int, slot: Int) throws(ExpansionError) -> Shape? {
        budget -= 6
        guard budget >= 0 else { throw .tooLarge }
        var alternatives: [Shape] = [.null, .boolean, .number, .string(minLength: 0, maxLength: nil)]
        if depth > 0 && slot < GrammarBuilder.maxArrayNesting {
            if let item = try any(depth: depth - 1, slot: slot + 1) {
                alternatives.append(.array(items: item, minItems: 0, maxItems: nil))
                alternatives.append(.object(.init(properties: [], required: [], additional: item)))
            }
        }
        return .anyOf(alternatives)
    }
}
