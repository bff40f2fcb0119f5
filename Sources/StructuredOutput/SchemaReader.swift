/// Reads a JSON Schema document into `JSONSchema.Shape`.
///
/// Paths in errors are JSON Pointers into the document (`#/properties/tags/items`; inside a
/// `$ref` target, the target's pointer: `#/$defs/Node/properties/children`). A `$ref` is read
/// once per target and inlined; one met again while its target is still being read is a
/// cycle, kept as `.reference` with its target in `definitions`.
final class SchemaReader {
    typealias Shape = JSONSchema.Shape

    /// Keywords that never change which documents are valid.
    static let annotations: Set<String> = [
        "title", "description", "default", "examples", "example", "$schema", "$id", "$comment", "$anchor", "readOnly",
        "writeOnly", "deprecated", "discriminator", "contentEncoding", "contentMediaType", "contentSchema",
        "$defs", "definitions",
    ]
    static let understood: Set<String> = [
        "type", "properties", "required", "additionalProperties", "minProperties", "maxProperties", "items", "prefixItems",
        "additionalItems", "minItems", "maxItems", "uniqueItems", "minLength", "maxLength", "pattern", "format", "minimum",
        "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "nullable",
    ]
    /// Keywords of one type each, which tell a schema without `type` what it describes.
    static let families: [(type: String, keywords: Set<String>)] = [
        ("object", ["properties", "required", "additionalProperties", "minProperties", "maxProperties"]),
        ("array", ["items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems"]),
        ("string", ["minLength", "maxLength", "pattern", "format"]),
        ("number", ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
    ]

    let document: JSONValue
    private(set) var definitions: [String: Shape] = [:]
    private var cache: [String: Shape] = [:]
    private var reading: Set<String> = []
    private var recursive: Set<String> = []
    /// `$ref`s being merged into an `allOf`, to refuse a cycle of them.
    var merging: Set<String> = []

    init(root: JSONValue) { document = root }

    func root() throws(EngineError) -> Shape { try referenced("#", from: "#") }

    /// The shape at a `$ref` target.
    func referenced(_ pointer: String, from path: String) throws(EngineError) -> Shape {
        if let s = cache[pointer] { return s }
        if reading.contains(pointer) {
            recursive.insert(pointer)
            return .reference(pointer)
        }
        let target = try resolve(pointer, from: path)
        reading.insert(pointer)
        let s = try shape(target, path: pointer)
        reading.remove(pointer)
        cache[pointer] = s
        if recursive.contains(pointer) { definitions[pointer] = s }
        return s
    }

    /// The subschema a `$ref` names: a JSON Pointer in this document (RFC 6901, in a URI
    /// fragment: percent-decoded, then `~1` is `/` and `~0` is `~`).
    func resolve(_ pointer: String, from path: String) throws(EngineError) -> JSONValue {
        guard pointer.hasPrefix("#"), pointer == "#" || pointer.hasPrefix("#/") else {
            throw .unsupportedSchema(path: path, keyword: "$ref to \(pointer) (only JSON Pointers into this document)")
        }
        guard let decoded = Self.percentDecoded(String(pointer.dropFirst())) else {
            throw .invalidSchema(path: path + "/$ref", reason: "\(pointer) is not a valid URI fragment")
        }
        var node = document
        for token in decoded.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let key = Self.unescaped(token)
            switch node {
            case .object(let members) where members.contains { $0.key == key }:
                node = members.first { $0.key == key }!.value
            case .array(let items) where Int(key).map { items.indices.contains($0) } ?? false:
                node = items[Int(key)!]
            default:
                throw .invalidSchema(path: path + "/$ref", reason: "\(pointer) points nowhere in the document")
            }
        }
        return node
    }

    private static func percentDecoded(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, let h = UInt8(String(decoding: bytes[(i + 1)...(i + 2)], as: UTF8.self), radix: 16) else {
                    return nil
                }
                out.append(h)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// A reference token with `~1` read as `/` and `~0` as `~`.
    private static func unescaped(_ token: Substring) -> String {
        var out = ""
        var tilde = false
        for c in token {
            if tilde {
                out.append(c == "1" ? "/" : c == "0" ? "~" : c)
                tilde = false
            } else if c == "~" {
                tilde = true
            } else {
                out.append(c)
            }
        }
        return out
    }

    func shape(_ schema: JSONValue, path: String) throws(EngineError) -> Shape {
        guard let members = schema.members else {
            if case .bool(true) = schema { return .any }
            if case .bool(false) = schema { throw .unsupportedSchema(path: path, keyword: "false (no value is valid)") }
            throw .invalidSchema(path: path, reason: "a schema must be an object or a boolean")
        }
        for m in members where !Self.understood.contains(m.key) && !Self.annotations.contains(m.key) {
            throw .unsupportedSchema(path: path, keyword: m.key)
        }
        if case .bool(true) = schema["uniqueItems"] ?? .null { throw .unsupportedSchema(path: path, keyword: "uniqueItems") }
        // A nested $id starts a new base for the `$ref`s under it, which are read against the root.
        if schema["$id"] != nil && path != "#" { throw .unsupportedSchema(path: path, keyword: "$id in a subschema") }
        if schema["allOf"] != nil { return try shape(merged(schema, path: path), path: path) }
        if case .string(let ref)? = schema["$ref"] {
            // Siblings of `$ref` apply too (draft 2020-12): merge them in unless they are annotations.
            if members.allSatisfy({ $0.key == "$ref" || Self.annotations.contains($0.key) }) { return try referenced(ref, from: path) }
            return try shape(merged(schema, path: path), path: path)
        }
        if schema["$ref"] != nil { throw .invalidSchema(path: path + "/$ref", reason: "$ref must be a string") }
        var result = try core(schema, path: path)
        if case .bool(true) = schema["nullable"] ?? .null, result != .null, result != .any {
            result = try merge([result, .null], path: path, exclusive: false)
        }
        return result
    }

    /// The schema with only its assertion keywords other than `except`, or nil when none is left.
    static func assertions(_ schema: JSONValue, except: Set<String>) -> JSONValue? {
        let kept = (schema.members ?? []).filter { !annotations.contains($0.key) && !except.contains($0.key) }
        return kept.isEmpty ? nil : .object(kept)
    }

    private func core(_ schema: JSONValue, path: String) throws(EngineError) -> Shape {
        if schema["enum"] != nil || schema["const"] != nil { return try literal(schema, path: path) }
        if schema["anyOf"] != nil || schema["oneOf"] != nil { return try alternatives(schema, path: path) }
        switch schema["type"] {
        case .string(let name)?:
            return try typeShape(name, schema, path: path)
        case .array(let names)?:
            var shapes: [Shape] = []
            for case .string(let name) in names { shapes.append(try typeShape(name, schema, path: path)) }
            guard shapes.count == names.count, !shapes.isEmpty else {
                throw .invalidSchema(path: path + "/type", reason: "type must be a name or a list of names")
            }
            return try merge(shapes, path: path, exclusive: false)
        case nil:
            // No type: the keywords of one type say which (a subset of what the schema allows,
            // which also lets values of the other types through); none at all is any value.
            let present = Self.families.filter { f in schema.members!.contains { f.keywords.contains($0.key) } }
            switch present.count {
            case 0: return .any
            case 1: return try typeShape(present[0].type, schema, path: path)
            default: throw .unsupportedSchema(path: path, keyword: "keywords of several types without a type")
            }
        default:
            throw .invalidSchema(path: path + "/type", reason: "type must be a name or a list of names")
        }
    }

    /// `enum`/`const`: the values that also satisfy the schema's other keywords.
    private func literal(_ schema: JSONValue, path: String) throws(EngineError) -> Shape {
        var values: [JSONValue]
        if let list = schema["enum"] {
            guard case .array(let items) = list, !items.isEmpty else {
                throw .invalidSchema(path: path + "/enum", reason: "enum must be a non-empty array")
            }
            values = []
            for v in items where !values.contains(where: { $0.isEqual(to: v) }) { values.append(v) }
            if let c = schema["const"] { values = values.filter { $0.isEqual(to: c) } }
        } else {
            values = [schema["const"]!]
        }
        if let rest = Self.assertions(schema, except: ["enum", "const", "nullable"]) {
            var restSchema = JSONSchema(shape: try core(rest, path: path), document: rest, definitions: definitions)
            if case .bool(true) = schema["nullable"] ?? .null { restSchema.shape = try merge([restSchema.shape, .null], path: path, exclusive: false) }
            values = values.filter { (try? restSchema.validate($0, lenient: true)) != nil }
        }
        guard !values.isEmpty else {
            throw .invalidSchema(path: path + (schema["enum"] != nil ? "/enum" : "/const"),
                                 reason: "no value of it satisfies the schema's other keywords")
        }
        return .literal(values.sorted { $0.serialized < $1.serialized })
    }

    func count(_ schema: JSONValue, _ keyword: String, path: String) throws(EngineError) -> Int? {
        guard let v = schema[keyword] else { return nil }
        guard let n = v.number, n >= 0, n.rounded() == n, n < 65_535 else {
            throw .invalidSchema(path: path + "/" + keyword, reason: "\(keyword) must be an integer from 0 to 65534")
        }
        return Int(n)
    }
}
