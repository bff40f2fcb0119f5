/// One `type` of a schema with the keywords of that type.
extension SchemaReader {
    func typeShape(_ name: String, _ schema: JSONValue, path: String) throws(EngineError) -> Shape {
        switch name {
        case "null": return .null
        case "boolean": return .boolean
        case "number", "integer": return try numeric(integer: name == "integer", schema, path: path)
        case "string": return try string(schema, path: path)
        case "array": return try array(schema, path: path)
        case "object": return .object(try object(schema, path: path))
        default: throw .invalidSchema(path: path + "/type", reason: "unknown type \(name)")
        }
    }

    private func number(_ schema: JSONValue, _ keyword: String, path: String) throws(EngineError) -> Double? {
        guard let v = schema[keyword] else { return nil }
        guard let n = v.number else { throw .invalidSchema(path: path + "/" + keyword, reason: "\(keyword) must be a number") }
        return n
    }

    /// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers, or draft 4's
    /// booleans beside `minimum`/`maximum`); the tighter bound wins when both forms are given.
    private func numeric(integer: Bool, _ schema: JSONValue, path: String) throws(EngineError) -> Shape {
        typealias Bound = NumericRange.Bound
        func bound(_ inclusive: String, _ exclusive: String, tighter: (Double, Double) -> Bool) throws(EngineError) -> Bound? {
            var result = try number(schema, inclusive, path: path).map { Bound($0) }
            switch schema[exclusive] {
            case nil, .bool(false)?: break
            case .bool(true)?:
                guard result != nil else { throw .invalidSchema(path: path + "/" + exclusive, reason: "\(exclusive): true needs \(inclusive)") }
                result!.exclusive = true
            case .number(let n)?:
                if result.map({ tighter(n, $0.value) || n == $0.value }) ?? true { result = Bound(n, exclusive: true) }
            default:
                throw .invalidSchema(path: path + "/" + exclusive, reason: "\(exclusive) must be a number")
            }
            return result
        }
        var lower = try bound("minimum", "exclusiveMinimum", tighter: >)
        var upper = try bound("maximum", "exclusiveMaximum", tighter: <)
        switch schema["format"] {
        case .string("int32")? where integer:
            lower = lower.map { $0.value >= -2_147_483_648 ? $0 : Bound(-2_147_483_648) } ?? Bound(-2_147_483_648)
            upper = upper.map { $0.value <= 2_147_483_647 ? $0 : Bound(2_147_483_647) } ?? Bound(2_147_483_647)
        case .string("int64")? where integer, .string("float")? where !integer, .string("double")? where !integer, nil: break
        case .string(let f)? where StringFormat(rawValue: f) != nil: break  // a string format: only strings obey it
        case .string(let f)?: throw .unsupportedSchema(path: path, keyword: "format \(f)")
        default: throw .invalidSchema(path: path + "/format", reason: "format must be a string")
        }
        guard lower != nil || upper != nil else { return integer ? .integer : .number }
        if integer {
            // Whole numbers only: fold exclusivity and fractions into inclusive bounds.
            lower = lower.map { Bound($0.exclusive ? $0.value.rounded(.down) + 1 : $0.value.rounded(.up)) }
            upper = upper.map { Bound($0.exclusive ? $0.value.rounded(.up) - 1 : $0.value.rounded(.down)) }
        }
        if let l = lower, let u = upper, l.value > u.value || (l.value == u.value && (l.exclusive || u.exclusive)) {
            throw .invalidSchema(path: path, reason: "no \(integer ? "integer" : "number") lies between the minimum and the maximum")
        }
        return .range(NumericRange(integer: integer, lower: lower, upper: upper))
    }

    private func string(_ schema: JSONValue, path: String) throws(EngineError) -> Shape {
        let minLength = try count(schema, "minLength", path: path) ?? 0
        let maxLength = try count(schema, "maxLength", path: path)
        if let maxLength, maxLength < minLength {
            throw .invalidSchema(path: path, reason: "maxLength \(maxLength) is below minLength \(minLength)")
        }
        var pattern: SchemaPattern?
        switch schema["pattern"] {
        case nil: break
        case .string(let source)?:
            do {
                pattern = try SchemaPattern(source)
            } catch {
                switch error {
                case .unsupported(let what): throw .unsupportedSchema(path: path, keyword: "pattern with \(what)")
                case .malformed(let why): throw .invalidSchema(path: path + "/pattern", reason: why)
                }
            }
        default: throw .invalidSchema(path: path + "/pattern", reason: "pattern must be a string")
        }
        var format: StringFormat?
        switch schema["format"] {
        case nil: break
        case .string(let name)?:
            guard let f = StringFormat(rawValue: name) else { throw .unsupportedSchema(path: path, keyword: "format \(name)") }
            format = f
        default: throw .invalidSchema(path: path + "/format", reason: "format must be a string")
        }
        guard pattern != nil || format != nil else { return .string(minLength: minLength, maxLength: maxLength) }
        return .text(.init(pattern: pattern, format: format, minLength: minLength, maxLength: maxLength))
    }

    /// `items`/`prefixItems` (or draft 7's `items` array with `additionalItems`). Without an
    /// `items` keyword no item past the prefix is generated, unless `minItems` asks for them.
    private func array(_ schema: JSONValue, path: String) throws(EngineError) -> Shape {
        let minItems = try count(schema, "minItems", path: path) ?? 0
        var maxItems = try count(schema, "maxItems", path: path)
        if let maxItems, maxItems < minItems {
            throw .invalidSchema(path: path, reason: "maxItems \(maxItems) is below minItems \(minItems)")
        }
        var prefixSchemas: [JSONValue]?
        var restKeyword = "items"
        switch (schema["prefixItems"], schema["items"]) {
        case (.array(let list)?, _):
            prefixSchemas = list
        case (nil, .array(let list)?):
            prefixSchemas = list
            restKeyword = "additionalItems"
        case (nil, _):
            break
        default:
            throw .invalidSchema(path: path + "/prefixItems", reason: "prefixItems must be an array")
        }
        let restSchema = schema[restKeyword]
        func rest() throws(EngineError) -> Shape? {
            switch restSchema {
            case .bool(false)?: return nil
            case nil: return prefixSchemas == nil || minItems > (prefixSchemas?.count ?? 0) ? .any : nil
            case let s?: return try shape(s, path: path + "/" + restKeyword)
            }
        }
        guard let prefixSchemas else {
            guard let items = try rest() else {
                guard minItems == 0 else { throw .invalidSchema(path: path, reason: "minItems \(minItems) with items: false") }
                return .literal([.array([])])
            }
            return .array(items: items, minItems: minItems, maxItems: maxItems)
        }
        let prefixKeyword = restKeyword == "items" ? "prefixItems" : "items"
        var prefix: [Shape] = []
        for (i, item) in prefixSchemas.enumerated() {
            if case .bool(false) = item {
                // No item may stand here, so the array ends before it.
                maxItems = min(maxItems ?? i, i)
                break
            }
            prefix.append(try shape(item, path: "\(path)/\(prefixKeyword)/\(i)"))
        }
        let restShape = prefix.count < prefixSchemas.count ? nil : try rest()
        let reachable = restShape == nil ? prefix.count : Int.max
        guard minItems <= min(reachable, maxItems ?? Int.max) else {
            throw .invalidSchema(path: path, reason: "minItems \(minItems) but at most \(min(reachable, maxItems ?? reachable)) items are allowed")
        }
        return .tuple(prefix: prefix, rest: restShape, minItems: minItems, maxItems: maxItems)
    }

    func object(_ schema: JSONValue, path: String) throws(EngineError) -> JSONSchema.ObjectShape {
        var additional: Shape?
        var closed = false
        switch schema["additionalProperties"] {
        case nil: break
        case .bool(false)?: closed = true
        case let s?: additional = try shape(s, path: path + "/additionalProperties")
        }
        var properties: [JSONSchema.Property] = []
        var forbidden: Set<String> = []
        switch schema["properties"] {
        case nil: break
        case .object(let members)?:
            for m in members {
                guard !properties.contains(where: { $0.name == m.key }) && !forbidden.contains(m.key) else {
                    throw .invalidSchema(path: path + "/properties", reason: "property \(m.key) is declared twice")
                }
                if case .bool(false) = m.value {
                    forbidden.insert(m.key)
                    continue
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
                if !properties.contains(where: { $0.name == n }) {
                    // A required member the properties leave to additionalProperties (any value when absent).
                    guard !closed && !forbidden.contains(n) else {
                        throw .invalidSchema(path: path + "/required", reason: "required property \(n) is not allowed")
                    }
                    properties.append(.init(n, additional ?? .any))
                }
                required.insert(n)
            }
        default:
            throw .invalidSchema(path: path + "/required", reason: "required must be an array")
        }
        let minProperties = try count(schema, "minProperties", path: path) ?? 0
        let maxProperties = try count(schema, "maxProperties", path: path)
        if let maxProperties, maxProperties < max(minProperties, required.count) {
            throw .invalidSchema(path: path, reason: "maxProperties \(maxProperties) is below minProperties or the required count")
        }
        var o = JSONSchema.ObjectShape(properties: properties, required: required, additional: additional,
                                       minProperties: minProperties, maxProperties: maxProperties)
        o.closed = closed
        return o
    }
}
