/// Expression evaluation with Python semantics.
extension Renderer {
    func evaluate(_ e: Expression, _ scope: Scope) throws(JinjaError) -> Value {
        if !foldingConstants, e.containsSlice {
            // jinja2's optimizer replaces a constant subexpression by its value when that value
            // is a plain constant (see `ConstantFolding`).
            foldingConstants = true
            let folded = try? evaluate(e, scope)
            foldingConstants = false
            if let folded, ConstantFolding.hasSafeRepr(folded) { return folded }
        }
        let loc = e.location
        switch e.kind {
        case .literal(let literal):
            switch literal {
            case .none: return .none
            case .bool(let b): return .bool(b)
            case .int(let i): return .int(i)
            case .double(let d): return .double(d)
            case .string(let s): return .template(s)
            }
        case .name(let name):
            if foldingConstants { throw Self.notConstant(at: loc) }
            return scope.lookup(name) ?? .undefined("'\(name)' is undefined")
        case .list(let items):
            return try checkDepth(.list(try items.map { (item) throws(JinjaError) in try evaluate(item, scope) }), at: loc)
        case .tuple(let items):
            return try checkDepth(.tuple(try items.map { (item) throws(JinjaError) in try evaluate(item, scope) }), at: loc)
        case .dict(let pairs):
            var dict = DictValue()
            for pair in pairs {
                let key = try evaluate(pair.key, scope)
                guard case .string(let k) = key else {
                    throw .unsupported(construct: "dict key of type '\(key.typeName)'", at: pair.key.location)
                }
                dict[k] = try evaluate(pair.value, scope)
            }
            return try checkDepth(.dict(dict), at: loc)
        case .attribute(let base, let name):
            return try attribute(of: try evaluate(base, scope), name, at: loc)
        case .item(let base, let key):
            let container = try evaluate(base, scope)
            if case .slice(let start, let stop, let step) = key.kind {
                func bound(_ x: Expression?) throws(JinjaError) -> Value { try x.map { (x) throws(JinjaError) in try evaluate(x, scope) } ?? .none }
                do {
                    return try slice(container, try bound(start), try bound(stop), try bound(step), at: loc)
                } catch .typeMismatch(_, let message, _) where foldingConstants {
                    // Folded at compile time, jinja2 subscripts through the sandbox's getitem,
                    // which turns the TypeError into an undefined.
                    return .undefined(message)
                }
            }
            return try item(of: container, try evaluate(key, scope), at: loc)
        case .slice:
            throw .syntax(message: "slice outside a subscript", at: loc)
        case .unary(let op, let operand):
            return try unary(op, try evaluate(operand, scope), at: loc)
        case .binary(let op, let a, let b):
            return try binary(op, try evaluate(a, scope), try evaluate(b, scope), at: loc)
        case .and(let a, let b):
            let left = try evaluate(a, scope)
            return left.isTruthy ? try evaluate(b, scope) : left
        case .or(let a, let b):
            let left = try evaluate(a, scope)
            return left.isTruthy ? left : try evaluate(b, scope)
        case .concat(let parts):
            var out = JinjaString.empty
            for part in parts { out.append(try evaluate(part, scope).str) }
            try checkSize(out.count, at: loc)
            return .string(out)
        case .compare(let first, let operations):
            var left = try evaluate(first, scope)
            for (op, expression) in operations {
                let right = try evaluate(expression, scope)
                if !(try compare(op, left, right, at: loc)) { return .bool(false) }
                left = right
            }
            return .bool(true)
        case .conditional(let test, let then, let otherwise):
            if try evaluate(test, scope).isTruthy { return try evaluate(then, scope) }
            if let otherwise { return try evaluate(otherwise, scope) }
            if foldingConstants { throw Self.notConstant(at: loc) }
            return .undefined("the inline if-expression on line \(loc.line) evaluated to false and no else section was defined.")
        case .call(let callee, let arguments):
            if foldingConstants { throw Self.notConstant(at: loc) }
            let function = try evaluate(callee, scope)
            return try call(function, try evaluateArguments(arguments, scope, at: loc), at: loc)
        case .filter:
            return try evaluateFilter(e, operand: nil, scope)
        case .test(let subject, let name, let arguments):
            let value = try evaluate(subject, scope)
            return .bool(try applyTest(name, value, try evaluateArguments(arguments, scope, at: loc), at: loc))
        }
    }

    /// What a folding attempt throws at a construct that does not fold (the attempt discards it).
    static func notConstant(at loc: JinjaLocation) -> JinjaError {
        .unsupported(construct: "constant folding", at: loc)
    }

    /// A filter chain; `operand` replaces the innermost missing operand (`{% filter %}`,
    /// `{% set x | f %}`).
    func evaluateFilter(_ e: Expression, operand: Value?, _ scope: Scope) throws(JinjaError) -> Value {
        guard case .filter(let inner, let name, let arguments) = e.kind else { return try evaluate(e, scope) }
        if foldingConstants, ConstantFolding.contextFilters.contains(name) || arguments.splat != nil || arguments.keywordSplat != nil {
            throw Self.notConstant(at: e.location)
        }
        let value: Value
        if let inner {
            value = try evaluateFilter(inner, operand: operand, scope)
        } else if let operand {
            value = operand
        } else {
            throw .syntax(message: "filter without an operand", at: e.location)
        }
        return try applyFilter(name, value, try evaluateArguments(arguments, scope, at: e.location), at: e.location)
    }

    /// Evaluates call arguments, expanding `*args` and `**kwargs`.
    func evaluateArguments(_ a: Expression.Arguments, _ scope: Scope, at loc: JinjaLocation) throws(JinjaError) -> CallArguments {
        var out = CallArguments()
        for p in a.positional { out.positional.append(try evaluate(p, scope)) }
        for k in a.keywords { out.keywords.append((k.name, try evaluate(k.value, scope))) }
        if let splat = a.splat { out.positional += try evaluate(splat, scope).iterate(at: splat.location) }
        if let splat = a.keywordSplat {
            guard case .dict(let d) = try evaluate(splat, scope) else {
                throw .typeMismatch(operation: "call", message: "argument after ** must be a mapping", at: loc)
            }
            for (k, v) in d.entries { out.keywords.append((k.text, v)) }
        }
        return out
    }

    func unary(_ op: Expression.UnaryOperator, _ value: Value, at loc: JinjaLocation) throws(JinjaError) -> Value {
        if op == .not { return .bool(!value.isTruthy) }
        if case .undefined(let u) = value { throw u.error(at: loc) }
        switch (op, value.number) {
        case (.negate, .int(let i)?):
            let (r, overflow) = Int(0).subtractingReportingOverflow(i)
            if overflow { throw .integerOverflow(operation: "-", at: loc) }
            return .int(r)
        case (.negate, .double(let d)?): return .double(-d)
        case (.plus, .int(let i)?): return .int(i)
        case (.plus, .double(let d)?): return .double(d)
        default:
            throw .typeMismatch(operation: "unary", message: "bad operand type for unary \(op == .negate ? "-" : "+"): '\(value.typeName)'", at: loc)
        }
    }
}
