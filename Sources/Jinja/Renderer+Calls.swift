/// Calling macros, global functions and bound methods.
extension Renderer {
    func call(_ function: Value, _ args: CallArguments, at loc: JinjaLocation) throws(JinjaError) -> Value {
        switch function {
        case .undefined(let u):
            throw u.error(at: loc)
        case .callable(.macro(let macro, let scope)):
            return try invoke(macro, definedIn: scope, args, at: loc)
        case .callable(.global(let global)):
            return try callGlobal(global, args, at: loc)
        case .callable(.method(let receiver, let name)):
            return try callMethod(receiver, name, args, at: loc)
        default:
            throw .notCallable(name: "'\(function.typeName)' object is not callable", at: loc)
        }
    }

    /// jinja2's `Macro.__call__`: positionals fill parameters, then keywords by name. Extra
    /// positionals go to `varargs` and extra keywords to `kwargs` only if the body reads those
    /// names; otherwise they are errors, checked before any default runs. Missing parameters
    /// then take their defaults in order, evaluated in the macro's own frame (a default may use
    /// earlier parameters; later ones are still undefined), or become undefined.
    func invoke(_ macro: MacroDefinition, definedIn definition: Scope, _ args: CallArguments,
                at loc: JinjaLocation) throws(JinjaError) -> Value {
        callDepth += 1
        defer { callDepth -= 1 }
        if callDepth > limits.maxCallDepth { throw .limitExceeded(.callDepth(limits.maxCallDepth), at: loc) }
        var keywords = args.keywords
        func takeKeyword(_ name: String) -> Value? {
            guard let i = keywords.firstIndex(where: { $0.name == name }) else { return nil }
            return keywords.remove(at: i).value
        }
        let bound: [Value?] = macro.parameters.enumerated().map { i, parameter in
            i < args.positional.count ? args.positional[i] : takeKeyword(parameter)
        }
        let caller = macro.usesCaller ? takeKeyword("caller") : nil
        if !macro.usesVarargs && args.positional.count > macro.parameters.count {
            throw .typeMismatch(operation: "macro call",
                                message: "macro '\(macro.name)' takes not more than \(macro.parameters.count) argument(s)", at: loc)
        }
        if !macro.usesKwargs, let extra = keywords.first {
            let message = extra.name == "caller"
                ? "macro '\(macro.name)' was invoked with two values for the special caller argument. This is most likely a bug."
                : "macro '\(macro.name)' takes no keyword argument '\(extra.name)'"
            throw .typeMismatch(operation: "macro call", message: message, at: loc)
        }
        let scope = frame(definition, macro.location)
        for (parameter, value) in zip(macro.parameters, bound) {
            scope.set(parameter, value ?? .undefined("'\(parameter)' is undefined"))
        }
        if macro.usesCaller { scope.set("caller", caller ?? .undefined("No caller defined")) }
        if macro.usesVarargs { scope.set("varargs", .tuple(Array(args.positional.dropFirst(macro.parameters.count)))) }
        if macro.usesKwargs {
            var dict = DictValue()
            for (name, value) in keywords { dict[JinjaString(name, origin: .template)] = value }
            scope.set("kwargs", .dict(dict))
        }
        let firstDefault = macro.parameters.count - macro.defaults.count
        for (i, parameter) in macro.parameters.enumerated() where bound[i] == nil {
            scope.set(parameter, i >= firstDefault ? try evaluate(macro.defaults[i - firstDefault], scope)
                                                   : .undefined("parameter '\(parameter)' was not provided"))
        }
        var out = JinjaString.empty
        _ = try render(macro.body, in: scope, into: &out)
        return .string(out)
    }

    func callGlobal(_ function: GlobalFunction, _ args: CallArguments, at loc: JinjaLocation) throws(JinjaError) -> Value {
        switch function {
        case .raiseException:
            let bound = try args.bind("raise_exception", ["message"], required: 1, at: loc)
            throw .raised(message: bound[0]!.str.text, at: loc)
        case .strftimeNow:
            let bound = try args.bind("strftime_now", ["format"], required: 1, at: loc)
            guard case .string(let format) = bound[0]! else {
                throw .typeMismatch(operation: "strftime_now", message: "strftime() argument 1 must be str", at: loc)
            }
            return .data(Strftime.format(format.text, now))
        case .range:
            guard !args.positional.isEmpty, args.positional.count <= 3, args.keywords.isEmpty else {
                throw .typeMismatch(operation: "range", message: "range expected at most 3 arguments", at: loc)
            }
            var bounds: [Int] = []
            for v in args.positional {
                guard let i = Self.index(v) else {
                    throw .typeMismatch(operation: "range", message: "'\(v.typeName)' object cannot be interpreted as an integer", at: loc)
                }
                bounds.append(i)
            }
            let (start, stop, step) = bounds.count == 1 ? (0, bounds[0], 1)
                : (bounds[0], bounds[1], bounds.count == 3 ? bounds[2] : 1)
            if step == 0 { throw .invalidValue(operation: "range", message: "range() arg 3 must not be zero", at: loc) }
            let count = step > 0 ? (stop > start ? (stop - start - 1) / step + 1 : 0)
                : (start > stop ? (start - stop - 1) / (-step) + 1 : 0)
            // The sandbox's MAX_RANGE.
            if count > 100_000 { throw .rangeTooLarge(count: count, at: loc) }
            return .sequence(.range(start, stop, step))
        case .dict:
            var dict = DictValue()
            if let first = args.positional.first {
                guard args.positional.count == 1, case .dict(let d) = first else {
                    throw .unsupported(construct: "dict() from a non-dict positional argument", at: loc)
                }
                dict = d
            }
            for (name, value) in args.keywords { dict[JinjaString(name, origin: .template)] = value }
            return try checkDepth(.dict(dict), at: loc)
        case .namespace:
            var dict = DictValue()
            for value in args.positional {
                guard case .dict(let d) = value else {
                    throw .unsupported(construct: "namespace() from a non-dict positional argument", at: loc)
                }
                for (k, v) in d.entries { dict[k] = v }
            }
            for (name, value) in args.keywords { dict[JinjaString(name, origin: .template)] = value }
            return try checkDepth(.namespace(NamespaceObject(dict)), at: loc)
        case .cycler, .joiner:
            throw .unsupported(construct: "\(function.rawValue)()", at: loc)
        }
    }
}
