/// Checks documents against a schema, independently of the grammar (tests use it to hold the
/// grammar to the schema; the tool loop uses it on arguments a model wrote without a grammar).
///
/// Objects are checked strictly by default: a member the schema gives no shape (no property,
/// no `additionalProperties`) is a violation, since constrained decoding never writes one; the
/// lenient mode follows JSON Schema and refuses it only under `additionalProperties: false`.
/// String lengths count Unicode scalars, as JSON Schema does; patterns are searched for (they
/// match anywhere unless anchored); formats are checked as their RFCs define them, not only in
/// the spelling the grammar generates; recursive references are followed to any depth.
extension JSONSchema {
    /// Throws `EngineError.schemaViolation` naming the first place `value` breaks the schema.
    package func validate(_ value: JSONValue, lenient: Bool = false) throws(EngineError) {
        var v = Validator(definitions: definitions, lenient: lenient)
        try v.check(shape, value, path: "#")
    }

    /// Parses `json` and validates it.
    package func validate(json: String) throws(EngineError) {
        try validate(JSONValue(parsing: json))
    }
}

private struct Validator {
    typealias Shape = JSONSchema.Shape
    let definitions: [String: Shape]
    let lenient: Bool
    var automata: [String: ScalarNFA] = [:]

    init(definitions: [String: Shape], lenient: Bool) {
        self.definitions = definitions
        self.lenient = lenient
    }

    mutating func check(_ shape: Shape, _ value: JSONValue, path: String) throws(EngineError) {
        func fail(_ reason: String) -> EngineError { .schemaViolation(path: path, reason: reason) }
        switch shape {
        case .any: return
        case .null:
            guard value == .null else { throw fail("expected null, found \(value.typeName)") }
        case .boolean:
            guard case .bool = value else { throw fail("expected a boolean, found \(value.typeName)") }
        case .number:
            guard case .number = value else { throw fail("expected a number, found \(value.typeName)") }
        case .integer:
            guard case .number(let n) = value, n.rounded() == n else { throw fail("expected an integer, found \(value.serialized)") }
        case .range(let r):
            guard case .number(let n) = value else { throw fail("expected a number, found \(value.typeName)") }
            guard r.contains(n) else { throw fail("\(value.serialized) is outside \(Self.describe(r))") }
        case .string(let minLength, let maxLength):
            guard case .string(let s) = value else { throw fail("expected a string, found \(value.typeName)") }
            try Self.length(s, minLength, maxLength, path: path)
        case .text(let t):
            guard case .string(let s) = value else { throw fail("expected a string, found \(value.typeName)") }
            try Self.length(s, t.minLength, t.maxLength, path: path)
            if let p = t.pattern, !(try automaton("p" + p.source) { () throws(AutomatonError) in try ScalarNFA(searching: p.node) }).matches(s) {
                throw fail("\(value.serialized) does not match the pattern \(p.source)")
            }
            if let f = t.format,
               !(try automaton("f" + f.rawValue) { () throws(AutomatonError) in try ScalarNFA(whole: StringFormat.acceptedNodes[f]!) }).matches(s) {
                throw fail("\(value.serialized) is not a valid \(f.rawValue)")
            }
        case .literal(let values):
            guard values.contains(where: { $0.isEqual(to: value) }) else {
                throw fail("\(value.serialized) is not one of \(JSONValue.array(values).serialized)")
            }
        case .array(let items, let minItems, let maxItems):
            guard case .array(let list) = value else { throw fail("expected an array, found \(value.typeName)") }
            try Self.count(list.count, minItems, maxItems, "items", path: path)
            for (i, item) in list.enumerated() { try check(items, item, path: "\(path)/\(i)") }
        case .tuple(let prefix, let rest, let minItems, let maxItems):
            guard case .array(let list) = value else { throw fail("expected an array, found \(value.typeName)") }
            try Self.count(list.count, minItems, maxItems, "items", path: path)
            for (i, item) in list.enumerated() {
                if i < prefix.count {
                    try check(prefix[i], item, path: "\(path)/\(i)")
                } else if let rest {
                    try check(rest, item, path: "\(path)/\(i)")
                } else {
                    throw fail("\(list.count) items, but the schema allows \(prefix.count)")
                }
            }
        case .object(let o):
            try checkObject(o, value, path: path)
        case .anyOf(let alternatives):
            for alt in alternatives {
                do throws(EngineError) {
                    try check(alt, value, path: path)
                    return
                } catch {}
            }
            throw fail("\(value.serialized) matches none of the alternatives")
        case .taggedUnion(let key, let variants):
            guard case .string(let tag)? = value[key] else { throw fail("expected an object with a string \(key)") }
            guard let variant = variants.first(where: { $0.tag == tag }) else {
                throw fail("\(key) \(JSONValue.quoted(tag)) is not one of \(variants.map(\.tag))")
            }
            var o = variant.rest
            o.properties.insert(.init(key, .literal([.string(tag)])), at: 0)
            o.required.insert(key)
            try checkObject(o, value, path: path)
        case .reference(let pointer):
            guard let target = definitions[pointer] else { throw fail("the schema has no definition for \(pointer)") }
            try check(target, value, path: path)
        }
    }

    private mutating func checkObject(_ o: JSONSchema.ObjectShape, _ value: JSONValue, path: String) throws(EngineError) {
        guard case .object(let members) = value else {
            throw .schemaViolation(path: path, reason: "expected an object, found \(value.typeName)")
        }
        try Self.count(members.count, o.minProperties, o.maxProperties, "members", path: path)
        var seen: Set<String> = []
        for m in members {
            guard seen.insert(m.key).inserted else { throw .schemaViolation(path: path, reason: "member \(m.key) appears twice") }
            if let p = o.properties.first(where: { $0.name == m.key }) {
                try check(p.shape, m.value, path: path + "/" + m.key)
            } else if let extra = o.additional {
                try check(extra, m.value, path: path + "/" + m.key)
            } else if !lenient || o.closed {
                throw .schemaViolation(path: path, reason: "member \(m.key) is not in the schema")
            }
        }
        for name in o.required.sorted() where !seen.contains(name) {
            throw .schemaViolation(path: path, reason: "required member \(name) is missing")
        }
    }

    /// A compiled automaton, once per pattern or format.
    private mutating func automaton(_ key: String, _ build: () throws(AutomatonError) -> ScalarNFA) throws(EngineError) -> ScalarNFA {
        if let a = automata[key] { return a }
        do {
            let a = try build()
            automata[key] = a
            return a
        } catch {
            throw .unsupportedSchema(path: "#", keyword: "pattern too large to compile (over \(ScalarNFA.maxStates) automaton states)")
        }
    }

    private static func length(_ s: String, _ minLength: Int, _ maxLength: Int?, path: String) throws(EngineError) {
        let length = s.unicodeScalars.count
        guard length >= minLength else {
            throw .schemaViolation(path: path, reason: "string of \(length) characters is shorter than \(minLength)")
        }
        if let maxLength, length > maxLength {
            throw .schemaViolation(path: path, reason: "string of \(length) characters is longer than \(maxLength)")
        }
    }

    private static func count(_ n: Int, _ minimum: Int, _ maximum: Int?, _ what: String, path: String) throws(EngineError) {
        guard n >= minimum else { throw .schemaViolation(path: path, reason: "\(n) \(what), fewer than \(minimum)") }
        if let maximum, n > maximum { throw .schemaViolation(path: path, reason: "\(n) \(what), more than \(maximum)") }
    }

    private static func describe(_ r: NumericRange) -> String {
        let low = r.lower.map { ($0.exclusive ? "(" : "[") + JSONValue.numberText($0.value) } ?? "(-∞"
        let high = r.upper.map { JSONValue.numberText($0.value) + ($0.exclusive ? ")" : "]") } ?? "∞)"
        return low + ", " + high
    }
}

extension JSONValue {
    /// Equality as JSON Schema defines it for `enum` and `const`: numbers by value, objects
    /// regardless of member order, arrays item by item.
    package func isEqual(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            return a.allSatisfy { m in b.contains { $0.key == m.key && $0.value.isEqual(to: m.value) } }
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.isEqual(to: $1) }
        default:
            return self == other
        }
    }
}
