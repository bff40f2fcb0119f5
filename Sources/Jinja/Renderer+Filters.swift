/// jinja2's built-in filters (pallets/jinja `src/jinja2/filters.py` 3.1.6, reimplemented)
/// with transformers' `tojson`. String filters are here; sequence filters are in
/// `Renderer+SequenceFilters.swift`.
extension Renderer {
    /// Every filter name jinja2 (with transformers' `tojson`) defines.
    static let filterNames: Set<String> = [
        "abs", "attr", "batch", "capitalize", "center", "count", "d", "default", "dictsort", "e", "escape",
        "filesizeformat", "first", "float", "forceescape", "format", "groupby", "indent", "int", "join", "last",
        "length", "list", "lower", "items", "map", "min", "max", "pprint", "random", "reject", "rejectattr",
        "replace", "reverse", "round", "safe", "select", "selectattr", "slice", "sort", "string", "striptags",
        "sum", "title", "trim", "truncate", "unique", "upper", "urlencode", "urlize", "wordcount", "wordwrap",
        "xmlattr", "tojson",
    ]

    func applyFilter(_ name: String, _ value: Value, _ args: CallArguments, at loc: JinjaLocation) throws(JinjaError) -> Value {
        func bind(_ parameters: [String], required: Int = 0) throws(JinjaError) -> [Value?] {
            try args.bind(name, parameters, required: required, at: loc)
        }
        switch name {
        case "safe", "string":
            _ = try bind([])
            return .string(value.str)
        case "upper", "lower":
            _ = try bind([])
            return try callStringMethod(value.str, name, CallArguments(), at: loc)
        case "capitalize":
            _ = try bind([])
            return .string(value.str.transformed(JinjaString.pythonCapitalize))
        case "title":
            _ = try bind([])
            return .string(value.str.transformed(Self.jinjaTitle))
        case "trim":
            return try callStringMethod(value.str, "strip", CallArguments(positional: try bind(["chars"]).compactMap { $0 }), at: loc)
        case "replace":
            let bound = try bind(["old", "new", "count"], required: 2)
            var positional = [Value.string(bound[0]!.str), .string(bound[1]!.str)]
            if let count = bound[2], !count.isNone { positional.append(count) }
            return try callStringMethod(value.str, "replace", CallArguments(positional: positional), at: loc)
        case "center":
            let width = try bind(["width"])[0] ?? .int(80)
            return try callStringMethod(value.str, "center", CallArguments(positional: [width]), at: loc)
        case "e", "escape", "forceescape":
            _ = try bind([])
            return .string(value.str.mapRuns(Self.htmlEscape))
        case "indent":
            let bound = try bind(["width", "first", "blank"])
            // jinja2 appends "\n" to the value itself, so only strings work.
            guard case .string(let text) = value else {
                if case .undefined(let u) = value { throw u.error(at: loc) }
                throw .typeMismatch(operation: name, message: "unsupported operand type(s) for +=: '\(value.typeName)' and 'str'", at: loc)
            }
            return .string(try indent(text, width: bound[0] ?? .int(4), first: bound[1]?.isTruthy ?? false,
                                      blank: bound[2]?.isTruthy ?? false, at: loc))
        case "truncate":
            let bound = try bind(["length", "killwords", "end", "leeway"])
            guard case .string(let text) = value else {
                // jinja2 takes `len()` of the value and returns it unchanged when short enough.
                guard let n = value.length else {
                    throw .typeMismatch(operation: name, message: "object of type '\(value.typeName)' has no len()", at: loc)
                }
                if n <= (bound[0].flatMap { Self.index($0) } ?? 255) + (bound[3].flatMap { Self.index($0) } ?? 5) { return value }
                throw .typeMismatch(operation: name, message: "can only concatenate \(value.typeName) to \(value.typeName)", at: loc)
            }
            return .string(try truncate(text, bound, at: loc))
        case "wordcount":
            _ = try bind([])
            var count = 0, inWord = false
            for s in value.str.text.unicodeScalars {
                let word = s == "_" || Self.predicate("isalnum", String(s))
                if word && !inWord { count += 1 }
                inWord = word
            }
            return .int(count)
        case "format":
            if !args.positional.isEmpty && !args.keywords.isEmpty {
                throw .invalidValue(operation: name, message: "can't handle positional and keyword arguments at the same time", at: loc)
            }
            var operand = Value.tuple(args.positional)
            if !args.keywords.isEmpty {
                var dict = DictValue()
                for (k, v) in args.keywords { dict[JinjaString(k, origin: .template)] = v }
                operand = .dict(dict)
            }
            return .string(try PythonPercentFormat.format(value.str, operand, at: loc))
        case "default", "d":
            let bound = try bind(["default_value", "boolean"])
            let fallback = bound[0] ?? .template("")
            if value.isUndefined || ((bound[1]?.isTruthy ?? false) && !value.isTruthy) { return fallback }
            return value
        case "tojson":
            let bound = try bind(["ensure_ascii", "indent", "separators", "sort_keys"])
            let writer = try JSONWriter(ensureASCII: bound[0]?.isTruthy ?? false, indent: bound[1] ?? .none,
                                        separators: bound[2] ?? .none, sortKeys: bound[3]?.isTruthy ?? false, at: loc)
            let text = try writer.write(value, at: loc)
            try checkSize(text.unicodeScalars.count, at: loc)
            return .data(text)
        case "int":
            let bound = try bind(["default", "base"])
            return try Self.toInt(value, default: bound[0] ?? .int(0), base: bound[1].flatMap { Self.index($0) } ?? 10, at: loc)
        case "float":
            let fallback = try bind(["default"])[0] ?? .double(0)
            if case .undefined(let u) = value { throw u.error(at: loc) }
            return Self.toFloat(value) ?? fallback
        case "abs":
            _ = try bind([])
            switch value.number {
            case .int(let i)?:
                if i == .min { throw .integerOverflow(operation: "abs", at: loc) }
                return .int(abs(i))
            case .double(let d)?: return .double(abs(d))
            case nil:
                throw .typeMismatch(operation: name, message: "bad operand type for abs(): '\(value.typeName)'", at: loc)
            }
        case "round":
            let bound = try bind(["precision", "method"])
            return try round(value, precision: bound[0] ?? .int(0), method: bound[1]?.str.text ?? "common", at: loc)
        case "attr":
            let key = try bind(["name"], required: 1)[0]!
            if case .undefined(let u) = value { throw u.error(at: loc) }
            guard case .string(let attribute) = key else {
                throw .typeMismatch(operation: name, message: "attribute name must be string", at: loc)
            }
            return try pythonAttribute(value, attribute.text) ?? .undefined("'\(value.objectTypeRepr)' has no attribute '\(attribute.text)'")
        default:
            return try applySequenceFilter(name, value, args, at: loc)
        }
    }

    /// jinja2's `title` filter: words start after `-`, whitespace, or an opening bracket.
    static func jinjaTitle(_ text: String) -> String {
        var out = ""
        var atWordStart = true
        for s in text.unicodeScalars {
            let delimiter = PythonText.isSpace(s) || "-({[<".unicodeScalars.contains(s)
            if delimiter {
                out.unicodeScalars.append(s)
                atWordStart = true
            } else {
                out += atWordStart ? s.properties.uppercaseMapping : s.properties.lowercaseMapping
                atWordStart = false
            }
        }
        return out
    }

    /// `markupsafe.escape`.
    static func htmlEscape(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&#34;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// jinja2's `indent`, including its quirk of appending a newline before splitting lines.
    func indent(_ s: JinjaString, width: Value, first: Bool, blank: Bool, at loc: JinjaLocation) throws(JinjaError) -> JinjaString {
        let indention: JinjaString
        switch width {
        case .string(let w): indention = w
        case .int(let n): indention = JinjaString(String(repeating: " ", count: max(0, n)), origin: .template)
        case .bool(let b): indention = JinjaString(b ? " " : "", origin: .template)
        default:
            throw .typeMismatch(operation: "indent", message: "can't multiply sequence by non-int of type '\(width.typeName)'", at: loc)
        }
        let newline = JinjaString("\n", origin: .template)
        let lines = (s + newline).splitLines()
        var out: JinjaString
        if blank {
            out = JinjaString.joined(lines, separator: newline + indention)
        } else {
            out = lines.first ?? .empty
            let rest = lines.dropFirst()
            if !rest.isEmpty {
                out.append(newline)
                out.append(JinjaString.joined(rest.map { $0.text.isEmpty ? $0 : indention + $0 }, separator: newline))
            }
        }
        if first { out = indention + out }
        try checkSize(out.count, at: loc)
        return out
    }

    /// jinja2's `truncate` with the default `truncate.leeway` policy of 5.
    func truncate(_ s: JinjaString, _ bound: [Value?], at loc: JinjaLocation) throws(JinjaError) -> JinjaString {
        let length = bound[0].flatMap { Self.index($0) } ?? 255
        let killWords = bound[1]?.isTruthy ?? false
        let end = bound[2]?.str ?? JinjaString("...", origin: .template)
        let leeway = bound[3].flatMap { Self.index($0) } ?? 5
        if length < end.count || leeway < 0 {
            throw .invalidValue(operation: "truncate", message: "expected length >= \(end.count), got \(length)", at: loc)
        }
        if s.count <= length + leeway { return s }
        let head = s.slice(0..<max(0, length - end.count))
        if killWords { return head + end }
        return (head.split(" ", maxSplit: 1, fromRight: true).first ?? head) + end
    }
}
