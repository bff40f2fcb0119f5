/// `allOf` (and `$ref` with sibling keywords): the parts merged into one schema document, which
/// is then read as any other. Each keyword merges by its meaning: bounds take the tighter
/// value, `required` the union, `type` and `enum` the intersection, `properties` an `allOf` per
/// name, and a part's `additionalProperties` constrains the other parts' properties it does not
/// declare. Two parts that constrain anything else differently (two patterns, two formats, two
/// `anyOf`s) are refused: merging them would need an intersection the grammar does not build.
extension SchemaReader {
    static let lowerBounds: Set<String> = ["minimum", "minLength", "minItems", "minProperties"]
    static let upperBounds: Set<String> = ["maximum", "maxLength", "maxItems", "maxProperties"]

    /// The schema with its `allOf` parts (and its `$ref` target) merged in.
    func merged(_ schema: JSONValue, path: String) throws(EngineError) -> JSONValue {
        var parts: [JSONValue] = []
        try flatten(schema, path: path, into: &parts)
        var result = JSONValue.object([])
        for part in parts { result = try merge(result, part, path: path) }
        return result
    }

    /// `schema` as a list of documents without `allOf` or `$ref` at their top.
    private func flatten(_ schema: JSONValue, path: String, into parts: inout [JSONValue]) throws(EngineError) {
        guard case .object(var members) = schema else {
            if case .bool(false) = schema { throw .invalidSchema(path: path, reason: "allOf with false: no value is valid") }
            if case .bool(true) = schema { return }
            throw .invalidSchema(path: path, reason: "a schema must be an object or a boolean")
        }
        if let all = schema["allOf"] {
            guard case .array(let list) = all, !list.isEmpty else {
                throw .invalidSchema(path: path + "/allOf", reason: "allOf must be a non-empty array")
            }
            members.removeAll { $0.key == "allOf" }
            for (i, part) in list.enumerated() { try flatten(part, path: "\(path)/allOf/\(i)", into: &parts) }
        }
        if let ref = schema["$ref"] {
            guard case .string(let pointer) = ref else { throw .invalidSchema(path: path + "/$ref", reason: "$ref must be a string") }
            guard !merging.contains(pointer) else { throw .unsupportedSchema(path: path, keyword: "allOf through a recursive $ref") }
            members.removeAll { $0.key == "$ref" }
            merging.insert(pointer)
            defer { merging.remove(pointer) }
            try flatten(resolve(pointer, from: path), path: pointer, into: &parts)
        }
        parts.append(.object(members))
    }

    private func merge(_ a: JSONValue, _ b: JSONValue, path: String) throws(EngineError) -> JSONValue {
        let a = Self.typesWithNull(a), b = Self.typesWithNull(b)
        var out: [JSONValue.Member] = []
        var keys: [String] = a.members!.map(\.key)
        for m in b.members! where !keys.contains(m.key) { keys.append(m.key) }
        for key in keys {
            switch (a[key], b[key]) {
            case (let x?, nil), (nil, let x?):
                out.append(.init(key, x))
            case (let x?, let y?):
                if let v = try mergeKeyword(key, x, y, path: path) { out.append(.init(key, v)) }
            default: break
            }
        }
        var merged = JSONValue.object(out)
        try constrainProperties(&merged, a, b, path: path)
        try constrainProperties(&merged, b, a, path: path)
        return merged
    }

    private func mergeKeyword(_ key: String, _ x: JSONValue, _ y: JSONValue, path: String) throws(EngineError) -> JSONValue? {
        if x.isEqual(to: y) || Self.annotations.contains(key) { return x }
        func numbers() throws(EngineError) -> (Double, Double) {
            guard let p = x.number, let q = y.number else { throw .invalidSchema(path: path + "/" + key, reason: "\(key) must be a number") }
            return (p, q)
        }
        switch key {
        case _ where Self.lowerBounds.contains(key):
            let (p, q) = try numbers()
            return .number(max(p, q))
        case _ where Self.upperBounds.contains(key):
            let (p, q) = try numbers()
            return .number(min(p, q))
        case "exclusiveMinimum" where x.number != nil && y.number != nil:
            return .number(max(x.number!, y.number!))
        case "exclusiveMaximum" where x.number != nil && y.number != nil:
            return .number(min(x.number!, y.number!))
        case "required":
            guard case .array(let p) = x, case .array(let q) = y else {
                throw .invalidSchema(path: path + "/required", reason: "required must be an array")
            }
            return .array(p + q.filter { v in !p.contains(v) })
        case "type":
            let ys = Self.typeNames(y)
            var names: [String] = []
            for n in Self.typeNames(x) {
                let common = ys.contains(n) ? n : (n == "integer" && ys.contains("number")) || (n == "number" && ys.contains("integer")) ? "integer" : nil
                if let common, !names.contains(common) { names.append(common) }
            }
            guard !names.isEmpty else { throw .invalidSchema(path: path, reason: "allOf parts with no type in common") }
            return names.count == 1 ? .string(names[0]) : .array(names.map(JSONValue.string))
        case "enum":
            guard case .array(let p) = x, case .array(let q) = y else { throw .invalidSchema(path: path + "/enum", reason: "enum must be an array") }
            let common = p.filter { v in q.contains { $0.isEqual(to: v) } }
            guard !common.isEmpty else { throw .invalidSchema(path: path + "/enum", reason: "allOf parts with no enum value in common") }
            return .array(common)
        case "const":
            throw .invalidSchema(path: path + "/const", reason: "allOf parts with different constants")
        case "properties":
            guard case .object(let p) = x, case .object(let q) = y else {
                throw .invalidSchema(path: path + "/properties", reason: "properties must be an object")
            }
            var members = p
            for m in q {
                if let i = members.firstIndex(where: { $0.key == m.key }) {
                    members[i].value = .object([.init("allOf", .array([members[i].value, m.value]))])
                } else {
                    members.append(m)
                }
            }
            return .object(members)
        case "items", "additionalProperties", "additionalItems":
            return .object([.init("allOf", .array([x, y]))])
        case "nullable":
            return .bool(x == .bool(true) && y == .bool(true))
        default:
            throw .unsupportedSchema(path: path, keyword: "allOf parts with different \(key)")
        }
    }

    /// `from`'s `additionalProperties` applied to the properties `other` names (declares or
    /// requires) and `from` does not declare: false forbids them (a required one makes the
    /// schema unsatisfiable), a schema joins theirs.
    private func constrainProperties(_ merged: inout JSONValue, _ from: JSONValue, _ other: JSONValue, path: String) throws(EngineError) {
        guard let extra = from["additionalProperties"], extra != .bool(true), case .object(var members) = merged else { return }
        let own = Set(from["properties"]?.members?.map(\.key) ?? [])
        let required = Set(Self.names(merged["required"]))
        let foreign = Set(other["properties"]?.members?.map(\.key) ?? []).union(Self.names(other["required"])).subtracting(own)
        guard !foreign.isEmpty else { return }
        var properties = merged["properties"]?.members ?? []
        for name in foreign.sorted() {
            let i = properties.firstIndex { $0.key == name }
            if extra == .bool(false) {
                guard !required.contains(name) else {
                    throw .invalidSchema(path: path, reason: "required property \(name) is not allowed by another allOf part")
                }
                if let i { properties.remove(at: i) }
            } else if let i {
                properties[i].value = .object([.init("allOf", .array([properties[i].value, extra]))])
            } else {
                properties.append(.init(name, extra))
            }
        }
        members.removeAll { $0.key == "properties" }
        members.append(.init("properties", .object(properties)))
        merged = .object(members)
    }

    private static func names(_ list: JSONValue?) -> [String] {
        guard case .array(let items)? = list else { return [] }
        return items.compactMap(\.string)
    }

    private static func typeNames(_ type: JSONValue) -> [String] {
        switch type {
        case .string(let n): [n]
        case .array(let list): list.compactMap(\.string)
        default: []
        }
    }

    /// `nullable: true` folded into `type`, so that types intersect as the schema means them.
    private static func typesWithNull(_ schema: JSONValue) -> JSONValue {
        guard case .object(var members) = schema, case .bool(true)? = schema["nullable"], let type = schema["type"] else { return schema }
        members.removeAll { $0.key == "nullable" }
        let names = typeNames(type)
        if let i = members.firstIndex(where: { $0.key == "type" }), !names.contains("null") {
            members[i].value = .array((names + ["null"]).map(JSONValue.string))
        }
        return .object(members)
    }
}
