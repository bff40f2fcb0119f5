/// Python `str` methods a template can call (`message.content.strip()`, `x.startswith('<')`).
extension Renderer {
    func callStringMethod(_ s: JinjaString, _ name: String, _ args: CallArguments, at loc: JinjaLocation) throws(JinjaError) -> Value {
        func bind(_ parameters: [String], required: Int = 0) throws(JinjaError) -> [Value?] {
            try args.bind(name, parameters, required: required, at: loc)
        }
        func string(_ v: Value?, _ what: String = "argument") throws(JinjaError) -> JinjaString? {
            switch v {
            case nil, .none?: return nil
            case .string(let t)?: return t
            case let other?:
                throw .typeMismatch(operation: name, message: "\(what) must be str or None, not \(other.typeName)", at: loc)
            }
        }
        func int(_ v: Value?, _ defaultValue: Int) throws(JinjaError) -> Int {
            guard let v, !(v.isNone) else { return defaultValue }
            guard let i = Self.index(v) else {
                throw .typeMismatch(operation: name, message: "'\(v.typeName)' object cannot be interpreted as an integer", at: loc)
            }
            return i
        }
        switch name {
        case "strip", "lstrip", "rstrip":
            let chars = try string(try bind(["chars"])[0])?.text
            return .string(s.stripped(chars, leading: name != "rstrip", trailing: name != "lstrip"))
        case "upper": _ = try bind([]); return .string(s.mapRuns { Self.mapScalars($0, \.uppercaseMapping) })
        case "lower": _ = try bind([]); return .string(s.mapRuns { Self.mapScalars($0, \.lowercaseMapping) })
        case "casefold": _ = try bind([]); return .string(s.mapRuns { Self.mapScalars($0, \.lowercaseMapping) })
        case "swapcase":
            _ = try bind([])
            return .string(s.mapRuns { text in
                String(text.unicodeScalars.flatMap { c -> [Unicode.Scalar] in
                    let p = c.properties
                    return Array((p.isUppercase ? p.lowercaseMapping : p.isLowercase ? p.uppercaseMapping : String(c)).unicodeScalars)
                }.map(Character.init))
            })
        case "title": _ = try bind([]); return .string(s.transformed(JinjaString.pythonTitle))
        case "capitalize": _ = try bind([]); return .string(s.transformed(JinjaString.pythonCapitalize))
        case "startswith", "endswith":
            let bound = try bind(["prefix", "start", "end"], required: 1)
            let candidates: [Value]
            if case .sequence(let t) = bound[0]!, t.kind == .tuple { candidates = t.items } else { candidates = [bound[0]!] }
            var subject = s
            if bound[1] != nil || bound[2] != nil {
                let indices = Self.sliceIndices(count: s.count, start: try int(bound[1], 0), stop: try int(bound[2], s.count), step: 1)
                subject = indices.first.map { s.slice($0..<$0 + indices.count) } ?? .empty
            }
            for candidate in candidates {
                guard case .string(let p) = candidate else {
                    throw .typeMismatch(operation: name, message: "\(name) first arg must be str or a tuple of str, not \(candidate.typeName)", at: loc)
                }
                let a = subject.scalars, b = p.scalars
                if name == "startswith" ? a.starts(with: b) : a.reversed().starts(with: b.reversed()) { return .bool(true) }
            }
            return .bool(false)
        case "split", "rsplit":
            let bound = try bind(["sep", "maxsplit"])
            let sep = try string(bound[0])
            if sep?.text.isEmpty == true { throw .invalidValue(operation: name, message: "empty separator", at: loc) }
            let parts = s.split(sep?.text, maxSplit: try int(bound[1], -1), fromRight: name == "rsplit")
            return .list(parts.map { .string($0) })
        case "splitlines":
            let keep = try bind(["keepends"])[0]?.isTruthy ?? false
            return .list(s.splitLines(keepEnds: keep).map { .string($0) })
        case "replace":
            let bound = try bind(["old", "new", "count"], required: 2)
            guard let old = try string(bound[0]), let new = try string(bound[1]) else {
                throw .typeMismatch(operation: name, message: "replace() arguments must be str", at: loc)
            }
            let result = s.replacing(old, with: new, count: try int(bound[2], -1))
            try checkSize(result.count, at: loc)
            return .string(result)
        case "find", "rfind", "index", "rindex":
            let bound = try bind(["sub", "start", "end"], required: 1)
            guard let sub = try string(bound[0]) else {
                throw .typeMismatch(operation: name, message: "must be str, not NoneType", at: loc)
            }
            let start = bound[1].flatMap { Self.index($0) }, end = bound[2].flatMap { Self.index($0) }
            let i = s.find(sub.text, start: start, end: end, fromRight: name.hasPrefix("r"))
            if i < 0 && name.hasSuffix("index") { throw .invalidValue(operation: name, message: "substring not found", at: loc) }
            return .int(i)
        case "count":
            guard let sub = try string(try bind(["sub"], required: 1)[0]) else {
                throw .typeMismatch(operation: name, message: "must be str, not NoneType", at: loc)
            }
            return .int(s.occurrenceCount(sub.text))
        case "join":
            let items = try (try bind(["iterable"], required: 1)[0]!).iterate(at: loc)
            var parts: [JinjaString] = []
            for (i, item) in items.enumerated() {
                guard case .string(let t) = item else {
                    throw .typeMismatch(operation: name, message: "sequence item \(i): expected str instance, \(item.typeName) found", at: loc)
                }
                parts.append(t)
            }
            let result = JinjaString.joined(parts, separator: s)
            try checkSize(result.count, at: loc)
            return .string(result)
        case "removeprefix", "removesuffix":
            guard let affix = try string(try bind(["affix"], required: 1)[0]) else { return .string(s) }
            let a = s.scalars, b = affix.scalars
            if name == "removeprefix", a.starts(with: b) { return .string(s.slice(b.count..<a.count)) }
            if name == "removesuffix", !b.isEmpty, a.reversed().starts(with: b.reversed()) {
                return .string(s.slice(0..<a.count - b.count))
            }
            return .string(s)
        case "partition", "rpartition":
            guard let sep = try string(try bind(["sep"], required: 1)[0]), !sep.text.isEmpty else {
                throw .invalidValue(operation: name, message: "empty separator", at: loc)
            }
            let i = s.find(sep.text, fromRight: name == "rpartition")
            if i < 0 {
                return name == "partition" ? .tuple([.string(s), .template(""), .template("")])
                    : .tuple([.template(""), .template(""), .string(s)])
            }
            return .tuple([.string(s.slice(0..<i)), .string(s.slice(i..<i + sep.count)), .string(s.slice(i + sep.count..<s.count))])
        case "center", "ljust", "rjust":
            let bound = try bind(["width", "fillchar"], required: 1)
            let width = try int(bound[0], 0)
            let fill = try string(bound[1]) ?? JinjaString(" ", origin: .template)
            guard fill.count == 1 else {
                throw .typeMismatch(operation: name, message: "The fill character must be exactly one character long", at: loc)
            }
            return .string(Self.pad(s, width: width, fill: fill, mode: name))
        case "zfill":
            let width = try int(try bind(["width"], required: 1)[0], 0)
            let a = s.scalars
            let padCount = max(0, width - a.count)
            guard padCount > 0 else { return .string(s) }
            let zeros = JinjaString(String(repeating: "0", count: padCount), origin: s.uniformOrigin ?? .data)
            if let first = a.first, first == "+" || first == "-" {
                return .string(s.slice(0..<1) + zeros + s.slice(1..<a.count))
            }
            return .string(zeros + s)
        case "format":
            return .string(try PythonStringFormat.format(s, args, renderer: self, at: loc))
        case "isalnum", "isalpha", "isdigit", "isnumeric", "isdecimal", "isspace", "islower", "isupper", "istitle", "isascii":
            _ = try bind([])
            return .bool(Self.predicate(name, s.text))
        default:
            throw .unsupported(construct: "str.\(name)()", at: loc)
        }
    }

    static func mapScalars(_ text: String, _ mapping: KeyPath<Unicode.Scalar.Properties, String>) -> String {
        var out = ""
        for s in text.unicodeScalars { out += s.properties[keyPath: mapping] }
        return out
    }

    static func pad(_ s: JinjaString, width: Int, fill: JinjaString, mode: String) -> JinjaString {
        let total = max(0, width - s.count)
        guard total > 0 else { return s }
        func run(_ n: Int) -> JinjaString {
            JinjaString(String(repeating: fill.text, count: n), origin: fill.uniformOrigin ?? .template)
        }
        switch mode {
        case "ljust": return s + run(total)
        case "rjust": return run(total) + s
        default:
            // CPython's centering: the extra fill goes left when both the padding and the width are odd.
            let left = total / 2 + (total & width & 1)
            return run(left) + s + run(total - left)
        }
    }

    static func predicate(_ name: String, _ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        func all(_ f: (Unicode.Scalar) -> Bool) -> Bool { !scalars.isEmpty && scalars.allSatisfy(f) }
        func isAlpha(_ c: Unicode.Scalar) -> Bool {
            [.uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter].contains(c.properties.generalCategory)
        }
        func isDecimal(_ c: Unicode.Scalar) -> Bool { c.properties.generalCategory == .decimalNumber }
        func isDigit(_ c: Unicode.Scalar) -> Bool { c.properties.numericType == .decimal || c.properties.numericType == .digit }
        func isNumeric(_ c: Unicode.Scalar) -> Bool { c.properties.numericType != nil }
        switch name {
        case "isalnum": return all { isAlpha($0) || isDecimal($0) || isDigit($0) || isNumeric($0) }
        case "isalpha": return all(isAlpha)
        case "isdigit": return all(isDigit)
        case "isnumeric": return all(isNumeric)
        case "isdecimal": return all(isDecimal)
        case "isspace": return all(PythonText.isSpace)
        case "isascii": return scalars.allSatisfy(\.isASCII)
        case "islower":
            let cased = scalars.filter { $0.properties.isCased }
            return !cased.isEmpty && cased.allSatisfy { !$0.properties.isUppercase && $0.properties.generalCategory != .titlecaseLetter }
        case "isupper":
            let cased = scalars.filter { $0.properties.isCased }
            return !cased.isEmpty && cased.allSatisfy { !$0.properties.isLowercase && $0.properties.generalCategory != .titlecaseLetter }
        case "istitle": return !scalars.isEmpty && JinjaString.pythonTitle(text) == text && scalars.contains { $0.properties.isCased }
        default: return false
        }
    }
}
