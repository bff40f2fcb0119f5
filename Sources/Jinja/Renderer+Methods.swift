/// Bound-method calls on dicts, lists, tuples and `loop`; string methods are in
/// `Renderer+StringMethods.swift`.
extension Renderer {
    func callMethod(_ receiver: Value, _ name: String, _ args: CallArguments, at loc: JinjaLocation) throws(JinjaError) -> Value {
        switch receiver {
        case .string(let s):
            return try callStringMethod(s, name, args, at: loc)
        case .dict(let d):
            switch name {
            case "get":
                let bound = try args.bind("get", ["key", "default"], required: 1, at: loc)
                if case .string(let key) = bound[0]!, let value = d[key] { return value }
                return bound[1] ?? .none
            case "items":
                _ = try args.bind("items", [], at: loc)
                return .sequence(SequenceValue(d.entries.map { .tuple([.string($0.0), $0.1]) }, kind: .itemsView))
            case "keys":
                _ = try args.bind("keys", [], at: loc)
                return .sequence(SequenceValue(d.keys.map { .string($0) }, kind: .keysView))
            case "values":
                _ = try args.bind("values", [], at: loc)
                return .sequence(SequenceValue(d.values, kind: .valuesView))
            case "copy":
                _ = try args.bind("copy", [], at: loc)
                return .dict(d)
            default:
                throw .unsupported(construct: "dict.\(name)()", at: loc)
            }
        case .sequence(let s):
            switch name {
            case "count":
                let x = try args.bind("count", ["value"], required: 1, at: loc)[0]!
                return .int(s.items.filter { $0.pythonEquals(x) }.count)
            case "index":
                let x = try args.bind("index", ["value"], required: 1, at: loc)[0]!
                guard let i = s.items.firstIndex(where: { $0.pythonEquals(x) }) else {
                    throw .invalidValue(operation: "index", message: "\(x.repr) is not in \(receiver.typeName)", at: loc)
                }
                return .int(i)
            case "copy":
                _ = try args.bind("copy", [], at: loc)
                return receiver
            default:
                throw .unsupported(construct: "\(receiver.typeName).\(name)()", at: loc)
            }
        case .loop(let loop):
            if name == "cycle" {
                guard !args.positional.isEmpty else {
                    throw .typeMismatch(operation: "loop.cycle", message: "no items for cycling given", at: loc)
                }
                return args.positional[loop.index0 % args.positional.count]
            }
            let values = args.positional
            if let last = loop.lastChanged, last.count == values.count, zip(last, values).allSatisfy({ $0.pythonEquals($1) }) {
                return .bool(false)
            }
            loop.lastChanged = values
            return .bool(true)
        default:
            throw .notCallable(name: "'\(receiver.typeName)' object is not callable", at: loc)
        }
    }
}
