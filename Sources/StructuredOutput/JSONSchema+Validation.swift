/// Checks documents against a schema, independently of the grammar (tests use it to hold the
/// grammar to the schema; the tool loop uses it on arguments a model wrote without a grammar).
///
/// Objects are checked strictly: a member the schema does not declare is a violation, since
/// constrained decoding never writes one. String lengths count Unicode scalars, as JSON Schema
/// does.
extension JSONSchema {
    /// Throws `EngineError.schemaViolation` naming the first place `value` breaks the schema.
    package func validate(_ value: JSONValue) throws(EngineError) {
        try Self.check(shape, value, path: "#")
    }

    /// Parses `json` and validates it.
    package func validate(json: String) throws(EngineError) {
        try validate(JSONValue(parsing: json))
    }

    private static func check(_ shape: Shape, _ value: JSONValue, path: String) throws(EngineError) {
        func fail(_ reason: String) -> EngineError { .schemaViolation(path: path, reason: reason) }
        switch shape {
        case .null:
            guard value == .null else { throw fail("expected null, found \(value.typeName)") }
        case .boolean:
            guard case .bool = value else { throw fail("expected a boolean, found \(value.typeName)") }
        case .number:
            guard case .number = value else { throw fail("expected a number, found \(value.typeName)") }
        case .integer:
            guard case .number(let n) = value, n.rounded() == n else { throw fail("expected an integer, found \(value.serialized)") }
        case .string(let minLength, let maxLength):
            guard case .string(let s) = value else { throw fail("expected a string, found \(value.typeName)") }
            let length = s.unicodeScalars.count
            guard length >= minLength else { throw fail("string of \(length) characters is shorter than \(minLength)") }
            if let maxLength, length > maxLength { throw fail("string of \(length) characters is longer than \(maxLength)") }
        case .literal(let values):
            guard values.contains(value) else { throw fail("\(value.serialized) is not one of \(JSONValue.array(values).serialized)") }
        case .array(let items, let minItems, let maxItems):
            guard case .array(let list) = value else { throw fail("expected an array, found \(value.typeName)") }
            guard list.count >= minItems else { throw fail("\(list.count) items, fewer than \(minItems)") }
            if let maxItems, list.count > maxItems { throw fail("\(list.count) items, more than \(maxItems)") }
            for (i, item) in list.enumerated() { try check(items, item, path: "\(path)/\(i)") }
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
        }
    }

    private static func checkObject(_ o: ObjectShape, _ value: JSONValue, path: String) throws(EngineError) {
        guard case .object(let members) = value else {
            throw .schemaViolation(path: path, reason: "expected an object, found \(value.typeName)")
        }
        var seen: Set<String> = []
        for m in members {
            guard seen.insert(m.key).inserted else { throw .schemaViolation(path: path, reason: "member \(m.key) appears twice") }
            guard let p = o.properties.first(where: { $0.name == m.key }) else {
                throw .schemaViolation(path: path, reason: "member \(m.key) is not in the schema")
            }
            try check(p.shape, m.value, path: path + "/" + m.key)
        }
        for name in o.required.sorted() where !seen.contains(name) {
            throw .schemaViolation(path: path, reason: "required member \(name) is missing")
        }
    }
}
