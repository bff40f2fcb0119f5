/// jinja2's tests (`x is defined`, `x is divisibleby 3`, …) and the `map` / `select` family
/// that applies filters and tests by name.
extension Renderer {
    /// Every test name jinja2 defines.
    static let testNames: Set<String> = [
        "odd", "even", "divisibleby", "defined", "undefined", "filter", "test", "none", "boolean", "false", "true",
        "integer", "float", "lower", "upper", "string", "mapping", "number", "sequence", "iterable", "callable",
        "sameas", "escaped", "in", "==", "eq", "equalto", "!=", "ne", ">", "gt", "greaterthan", ">=", "ge",
        "<", "lt", "lessthan", "<=", "le",
    ]

    func applyTest(_ name: String, _ value: Value, _ args: CallArguments, at loc: JinjaLocation) throws(JinjaError) -> Bool {
        func one() throws(JinjaError) -> Value { try args.bind(name, ["other"], required: 1, at: loc)[0]! }
        func none() throws(JinjaError) { _ = try args.bind(name, [], at: loc) }
        switch name {
        case "defined": try none(); return !value.isUndefined
        case "undefined": try none(); return value.isUndefined
        case "none": try none(); return value.isNone
        case "boolean": try none(); if case .bool = value { return true }; return false
        case "true": try none(); if case .bool(true) = value { return true }; return false
        case "false": try none(); if case .bool(false) = value { return true }; return false
        case "integer": try none(); if case .int = value { return true }; return false
        case "float": try none(); if case .double = value { return true }; return false
        case "number": try none(); return value.number != nil
        case "string": try none(); if case .string = value { return true }; return false
        case "mapping": try none(); if case .dict = value { return true }; return false
        case "sequence":
            try none()
            // Python: has `len` and `__getitem__`.
            switch value {
            case .string, .dict, .undefined: return true
            case .sequence(let s): return s.isIndexable
            default: return false
            }
        case "iterable":
            try none()
            switch value {
            case .string, .dict, .sequence, .undefined: return true
            default: return false
            }
        case "callable":
            try none()
            // jinja2's Undefined defines __call__ (to raise), so it counts as callable.
            switch value {
            case .callable, .undefined: return true
            default: return false
            }
        case "lower", "upper":
            try none()
            return Self.predicate(name == "lower" ? "islower" : "isupper", value.str.text)
        case "odd", "even":
            try none()
            return try binary(.modulo, value, .int(2), at: loc).pythonEquals(.int(name == "odd" ? 1 : 0))
        case "divisibleby":
            return try binary(.modulo, value, try one(), at: loc).pythonEquals(.int(0))
        case "escaped": try none(); return false
        case "sameas":
            let other = try one()
            switch (value, other) {
            case (.none, .none), (.undefined, .undefined): return true
            case (.bool(let a), .bool(let b)): return a == b
            case (.namespace(let a), .namespace(let b)): return a === b
            default: return false
            }
        case "filter": try none(); if case .string(let s) = value { return Self.filterNames.contains(s.text) }; return false
        case "test": try none(); if case .string(let s) = value { return Self.testNames.contains(s.text) }; return false
        case "in": return try contains(try one(), value, at: loc)
        case "==", "eq", "equalto": return value.pythonEquals(try one())
        case "!=", "ne": return !value.pythonEquals(try one())
        case ">", "gt", "greaterthan": return try compare(.greater, value, try one(), at: loc)
        case ">=", "ge": return try compare(.greaterOrEqual, value, try one(), at: loc)
        case "<", "lt", "lessthan": return try compare(.less, value, try one(), at: loc)
        case "<=", "le": return try compare(.lessOrEqual, value, try one(), at: loc)
        default:
            throw .unknownTest(name: name, at: loc)
        }
    }

    /// `map(filter, …)` / `map(attribute=…, default=…)`, `select(test, …)`, `reject`,
    /// `selectattr(attr, test, …)`, `rejectattr`. A falsy input yields an empty generator
    /// without checking the arguments, as in jinja2.
    func mapOrSelect(_ name: String, _ value: Value, _ args: CallArguments, at loc: JinjaLocation) throws(JinjaError) -> Value {
        guard value.isTruthy else { return .sequence(SequenceValue([], kind: .generator)) }
        let items = try value.iterate(at: loc)
        var out: [Value] = []
        if name == "map" {
            if args.positional.isEmpty, let i = args.keywords.firstIndex(where: { $0.name == "attribute" }) {
                var keywords = args.keywords
                let attribute = keywords.remove(at: i).value
                let fallback = keywords.firstIndex { $0.name == "default" }.map { keywords.remove(at: $0).value }
                if let extra = keywords.first {
                    throw .invalidValue(operation: name, message: "Unexpected keyword argument '\(extra.name)'", at: loc)
                }
                for item in items { out.append(try attributePath(item, attribute, default: fallback, at: loc)) }
            } else {
                guard case .string(let filter)? = args.positional.first else {
                    throw .invalidValue(operation: name, message: "map requires a filter argument", at: loc)
                }
                let rest = CallArguments(positional: Array(args.positional.dropFirst()), keywords: args.keywords)
                for item in items { out.append(try applyFilter(filter.text, item, rest, at: loc)) }
            }
            return .sequence(SequenceValue(out, kind: .generator))
        }
        let byAttribute = name.hasSuffix("attr")
        let keep = name.hasPrefix("select")
        var positional = args.positional
        var attribute: Value?
        if byAttribute {
            guard !positional.isEmpty else {
                throw .invalidValue(operation: name, message: "Missing parameter for attribute name", at: loc)
            }
            attribute = positional.removeFirst()
        }
        let test: String?
        if case .string(let t)? = positional.first { test = t.text; positional.removeFirst() } else {
            test = nil
            if !positional.isEmpty { positional.removeFirst() }
        }
        let rest = CallArguments(positional: positional, keywords: args.keywords)
        for item in items {
            let subject = try attribute.map { (a) throws(JinjaError) in try attributePath(item, a, default: nil, at: loc) } ?? item
            let passed = try test.map { (t) throws(JinjaError) in try applyTest(t, subject, rest, at: loc) } ?? subject.isTruthy
            if passed == keep { out.append(item) }
        }
        return .sequence(SequenceValue(out, kind: .generator))
    }
}
