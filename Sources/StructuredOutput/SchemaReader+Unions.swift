/// `anyOf`/`oneOf`, type lists and `nullable`: one shape for "any of these".
extension SchemaReader {
    /// The alternatives of `anyOf`/`oneOf`, each merged with the schema's other assertions
    /// (which apply to every alternative alike). `false` alternatives drop out.
    func alternatives(_ schema: JSONValue, path: String) throws(EngineError) -> Shape {
        guard schema["anyOf"] == nil || schema["oneOf"] == nil else { throw .unsupportedSchema(path: path, keyword: "anyOf beside oneOf") }
        let keyword = schema["anyOf"] != nil ? "anyOf" : "oneOf"
        guard case .array(let list)? = schema[keyword], !list.isEmpty else {
            throw .invalidSchema(path: path + "/" + keyword, reason: "\(keyword) must be a non-empty array")
        }
        let siblings = Self.assertions(schema, except: [keyword, "nullable"])
        var shapes: [Shape] = []
        for (i, alt) in list.enumerated() {
            if case .bool(false) = alt { continue }
            let at = "\(path)/\(keyword)/\(i)"
            if let siblings {
                shapes.append(try shape(.object([.init("allOf", .array([alt, siblings]))]), path: at))
            } else {
                shapes.append(try shape(alt, path: at))
            }
        }
        guard !shapes.isEmpty else { throw .invalidSchema(path: path + "/" + keyword, reason: "every alternative is false") }
        return try merge(shapes, path: path, exclusive: keyword == "oneOf")
    }

    /// One shape for "any of these": duplicates and integer-inside-number fold away; objects
    /// told apart by a property holding a different string constant in each become a tagged
    /// union; otherwise the alternatives must begin with different characters, so that the
    /// first byte decides between them (which also makes them exclusive, as `oneOf` needs).
    func merge(_ shapes: [Shape], path: String, exclusive: Bool) throws(EngineError) -> Shape {
        var unique: [Shape] = []
        for s in shapes where !unique.contains(s) { unique.append(s) }
        if unique.contains(.number) && unique.contains(.integer) {
            if exclusive { throw .unsupportedSchema(path: path, keyword: "oneOf of integer and number (an integer matches both)") }
            unique.removeAll { $0 == .integer }
        }
        // Any value contains every alternative (Pydantic's Optional[Any] is anyOf {} and null).
        if unique.contains(.any) { return .any }
        if unique.count == 1 { return unique[0] }
        if let union = Self.taggedUnion(unique) { return union }
        // With a recursive reference among them, the alternatives are checked once the grammar
        // has expanded it (and may form a tagged union then).
        if unique.contains(where: { Self.firstBytes($0) == nil }) { return .anyOf(unique) }
        var seen: Set<UInt8> = []
        for s in unique {
            guard let first = Self.firstBytes(s) else { continue }
            guard seen.isDisjoint(with: first) else {
                throw .unsupportedSchema(path: path, keyword: "anyOf alternatives that can begin with the same character")
            }
            seen.formUnion(first)
        }
        return .anyOf(unique)
    }

    /// Objects that all require one property holding a single, distinct string constant: the
    /// first such property of the first object (so a tag declared first stays first). Recursive
    /// alternatives are told apart once the grammar has expanded them (`ShapeExpander`).
    static func taggedUnion(_ shapes: [Shape]) -> Shape? {
        var objects: [JSONSchema.ObjectShape] = []
        for case .object(let o) in shapes { objects.append(o) }
        guard objects.count == shapes.count, let first = objects.first else { return nil }
        func tag(_ o: JSONSchema.ObjectShape, _ key: String) -> String? {
            guard o.required.contains(key), let p = o.properties.first(where: { $0.name == key }),
                  case .literal(let values) = p.shape, values.count == 1, case .string(let t) = values[0] else { return nil }
            return t
        }
        for candidate in first.properties.map(\.name) {
            let tags = objects.compactMap { tag($0, candidate) }
            guard tags.count == objects.count, Set(tags).count == tags.count else { continue }
            let variants = zip(objects, tags).map { o, t in
                var rest = o
                rest.properties.removeAll { $0.name == candidate }
                rest.required.remove(candidate)
                return JSONSchema.Variant(tag: t, rest: rest)
            }
            return .taggedUnion(key: candidate, variants: variants)
        }
        return nil
    }

    static let numberStart = Set([UInt8(ascii: "-")] + Array(UInt8(ascii: "0")...UInt8(ascii: "9")))

    /// The bytes a document of this shape can begin with (nil: not known before expansion).
    static func firstBytes(_ shape: Shape) -> Set<UInt8>? {
        switch shape {
        case .object, .taggedUnion: [UInt8(ascii: "{")]
        case .array, .tuple: [UInt8(ascii: "[")]
        case .string, .text: [UInt8(ascii: "\"")]
        case .number, .integer: numberStart
        case .range(let r): r.lower.map { $0.value >= 0 } ?? false ? numberStart.subtracting([UInt8(ascii: "-")]) : numberStart
        case .boolean: [UInt8(ascii: "t"), UInt8(ascii: "f")]
        case .null: [UInt8(ascii: "n")]
        case .literal(let values): Set(values.compactMap { $0.serialized.utf8.first })
        case .anyOf(let list):
            list.contains { firstBytes($0) == nil } ? nil : list.reduce(into: Set<UInt8>()) { all, s in all.formUnion(firstBytes(s)!) }
        case .reference: nil
        case .any: numberStart.union("{[\"tfn".utf8)
        }
    }
}
