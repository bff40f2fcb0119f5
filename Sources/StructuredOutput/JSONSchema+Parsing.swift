/// Reads a JSON Schema document (an object of keywords) into `JSONSchema.Shape`.
///
/// Paths in errors are JSON Pointers into the document (`#/properties/tags/items`).
struct SchemaReader {
    typealias Shape = JSONSchema.Shape

    /// Keywords that change nothing about which documents are valid, or that we satisfy by never
    /// generating extras (`additionalProperties`).
    static let ignored: Set<String> = [
        "title", "description", "default", "examples", "$schema", "$id", "$comment", "readOnly", "writeOnly",
        "deprecated", "additionalProperties",
    ]
    static let understood: Set<String> = [
        "type", "properties", "required", "items", "minItems", "maxItems", "minLength", "maxLength", "enum", "const",
        "anyOf", "oneOf", "nullable",
    ]

    func shape(_ schema: JSONValue, path: String) throws(EngineError) -> Shape {
        guard let members = schema.members else {
            if case .bool(true) = schema { throw .unsupportedSchema(path: path, keyword: "true (any value)") }
            throw .invalidSchema(path: path, reason: "a schema must be an object")
        }
        for m in members where !Self.understood.contains(m.key) && !Self.ignored.contains(m.key) {
            throw .unsupportedSchema(path: path, keyword: m.key)
        }
        var result = try core(schema, path: path)
        if case .bool(true) = schema["nullable"] ?? .null, result != .null {
            result = try merge([result, .null], path: path)
        }
        return result
    }

    private func core(_ schema: JSONValue, path: String) throws(EngineError) -> Shape {
        if let values = schema["enum"] {
            guard case .array(let list) = values, !list.isEmpty else {
                throw .invalidSchema(path: path + "/enum", reason: "enum must be a non-empty array")
            }
            return .literal(try typed(Array(Set(list).sorted { $0.serialized < $1.serialized }), schema, path: path))
        }
        if let value = schema["const"] { return .literal(try typed([value], schema, path: path)) }
        for keyword in ["anyOf", "oneOf"] {
            guard let alternatives = schema[keyword] else { continue }
            guard schema["type"] == nil else { throw .unsupportedSchema(path: path, keyword: "\(keyword) beside type") }
            guard case .array(let list) = alternatives, !list.isEmpty else {
                throw .invalidSchema(path: path + "/" + keyword, reason: "\(keyword) must be a non-empty array")
            }
            var shapes: [Shape] = []
            for (i, alt) in list.enumerated() { shapes.append(try shape(alt, path: "\(path)/\(keyword)/\(i)")) }
            return try merge(shapes, path: path)
        }
        switch schema["type"] {
        case .string(let name)?:
            return try typeShape(name, schema, path: path)
        case .array(let names)?:
            var shapes: [Shape] = []
            for case .string(let name) in names { shapes.append(try typeShape(name, schema, path: path)) }
            guard shapes.count == names.count, !shapes.isEmpty else {
                throw .invalidSchema(path: path + "/type", reason: "type must be a name or a list of names")
            }
            return try merge(shapes, path: path)
        case nil:
            // An object schema may leave out `type` when it lists properties.
            if schema["properties"] != nil { return try typeShape("object", schema, path: path) }
            throw .unsupportedSchema(path: path, keyword: "a schema without type (any value)")
        default:
            throw .invalidSchema(path: path + "/type", reason: "type must be a name or a list of names")
        }
    }

    /// The enum/const values, checked against `type` when the schema also gives one.
    private func typed(_ values: [JSONValue], _ schema: JSONValue, path: String) throws(EngineError) -> [JSONValue] {
        guard let type = schema["type"] else { return values }
        let names: [String] = switch type {
        case .string(let n): [n]
        case .array(let list): list.compactMap(\.string)
        default: []
        }
        for v in values where !names.contains(v.typeName) && !(v.typeName == "integer" && names.contains("number")) {
            throw .invalidSchema(path: path + "/enum", reason: "\(v.serialized) is not of type \(type.serialized)")
        }
        return values
    }

    private func count(_ schema: JSONValue, _ keyword: String, path: String) throws(EngineError) -> Int? {
        guard let v = schema[keyword] else { return nil }
        guard let n = v.number, n >= 0, n.rounded() == n, n < 65_535 else {
            throw .invalidSchema(path: path + "/" + keyword, reason: "\(keyword) must be an integer from 0 to 65534")
        }
        return Int(n)
    }

    private func typeShape(_ name: String, _ schema: JSONValue, path: String) throws(EngineError) -> Shape {
        switch name {
        case "null": return .null
        case "boolean": return .boolean
        case "number": return .number
        case "integer": return .integer
        case "string":
            let minLength = try count(schema, "minLength", path: path) ?? 0
            let maxLength = try count(schema, "maxLength", path: path)
            if let maxLength, maxLength < minLength {
                throw .invalidSchema(path: path, reason: "maxLength \(maxLength) is below minLength \(minLength)")
            }
            return .string(minLength: minLength, maxLength: maxLength)
        case "array":
            guard let items = schema["items"] else { throw .unsupportedSchema(path: path, keyword: "array without items") }
            let minItems = try count(schema, "minItems", path: path) ?? 0
            let maxItems = try count(schema, "maxItems", path: path)
            if let maxItems, maxItems < minItems {
                throw .invalidSchema(path: path, reason: "maxItems \(maxItems) is below minItems \(minItems)")
            }
            return .array(items: try shape(items, path: path + "/items"), minItems: minItems, maxItems: maxItems)
        case "object":
            return .object(try object(schema, path: path))
        default:
            throw .invalidSchema(path: path + "/type", reason: "unknown type \(name)")
        }
    }

    private func object(_ schema: JSONValue, path: String) throws(EngineError) -> JSONSchema.ObjectShape {
        var properties: [JSONSchema.Property] = []
        switch schema["properties"] {
        case nil: break
        case .object(let members)?:
            for m in members {
                guard !properties.contains(where: { $0.name == m.key }) else {
                    throw .invalidSchema(path: path + "/properties", reason: "property \(m.key) is declared twice")
                }
                properties.append(.init(m.key, try shape(m.value, path: path + "/properties/" + m.key)))
            }
        default:
            throw .invalidSchema(path: path + "/properties", reason: "properties must be an object")
        }
        var required: Set<String> = []
        switch schema["required"] {
        case nil: break
        case .array(let names)?:
            for name in names {
                guard case .string(let n) = name else {
                    throw .invalidSchema(path: path + "/required", reason: "required must list property names")
                }
                guard properties.contains(where: { $0.name == n }) else {
                    throw .unsupportedSchema(path: path + "/required", keyword: "required property \(n) without a schema")
                }
                required.insert(n)
            }
        default:
            throw .invalidSchema(path: path + "/required", reason: "required must be an array")
        }
        return .init(properties: properties, required: required)
    }

    /// One shape for "any of these": duplicates and integer-inside-number fold away; objects
    /// told apart by a `const` first member become a tagged union; otherwise the alternatives
    /// must begin with different characters so that the first byte decides between them.
    func merge(_ shapes: [Shape], path: String) throws(EngineError) -> Shape {
        var unique: [Shape] = []
        for s in shapes where !unique.contains(s) { unique.append(s) }
        if unique.contains(.number) { unique.removeAll { $0 == .integer } }
        if unique.count == 1 { return unique[0] }
        if let union = taggedUnion(unique) { return union }
        var seen: Set<UInt8> = []
        for s in unique {
            let first = Self.firstBytes(s)
            guard seen.isDisjoint(with: first) else {
                throw .unsupportedSchema(path: path, keyword: "anyOf alternatives that can begin with the same character")
            }
            seen.formUnion(first)
        }
        return .anyOf(unique)
    }

    private func taggedUnion(_ shapes: [Shape]) -> Shape? {
        var key: String?
        var variants: [JSONSchema.Variant] = []
        for s in shapes {
            guard case .object(let o) = s, let first = o.properties.first, o.required.contains(first.name),
                  case .literal(let values) = first.shape, values.count == 1, case .string(let tag) = values[0],
                  key == nil || key == first.name, !variants.contains(where: { $0.tag == tag })
            else { return nil }
            key = first.name
            var rest = o
            rest.properties.removeFirst()
            rest.required.remove(first.name)
            variants.append(.init(tag: tag, rest: rest))
        }
        return key.map { .taggedUnion(key: $0, variants: variants) }
    }

    /// The bytes a document of this shape can begin with.
    static func firstBytes(_ shape: Shape) -> Set<UInt8> {
        switch shape {
        case .object, .taggedUnion: [UInt8(ascii: "{")]
        case .array: [UInt8(ascii: "[")]
        case .string: [UInt8(ascii: "\"")]
        case .number, .integer: Set([UInt8(ascii: "-")] + Array(UInt8(ascii: "0")...UInt8(ascii: "9")))
        case .boolean: [UInt8(ascii: "t"), UInt8(ascii: "f")]
        case .null: [UInt8(ascii: "n")]
        case .literal(let values): Set(values.compactMap { $0.serialized.utf8.first })
        case .anyOf(let list): list.reduce(into: Set<UInt8>()) { $0.formUnion(firstBytes($1)) }
        }
    }
}
