/// An expression node of the template AST (jinja2's `nodes.Expr` subclasses we support).
struct Expression: Sendable {
    indirect enum Kind: Sendable {
        /// `none`, `true`, `42`, `1.5`, `'text'`.
        case literal(Literal)
        /// A variable.
        case name(String)
        /// `[a, b]`.
        case list([Expression])
        /// `(a, b)` or a bare `a, b`.
        case tuple([Expression])
        /// `{k: v}`.
        case dict([(key: Expression, value: Expression)])
        /// `x.name` (jinja2 `Getattr`: attribute first, then item).
        case attribute(Expression, String)
        /// `x[key]` (jinja2 `Getitem`: item first, then attribute).
        case item(Expression, Expression)
        /// `start:stop:step`, only as the key of `.item`.
        case slice(start: Expression?, stop: Expression?, step: Expression?)
        /// `-x`, `+x`, `not x`.
        case unary(UnaryOperator, Expression)
        /// Arithmetic.
        case binary(BinaryOperator, Expression, Expression)
        /// `a and b` (short-circuit, yields an operand like Python).
        case and(Expression, Expression)
        /// `a or b`.
        case or(Expression, Expression)
        /// `a ~ b ~ c`.
        case concat([Expression])
        /// `a < b <= c`, `x in y`, chained like Python.
        case compare(Expression, [(CompareOperator, Expression)])
        /// `a if test else b`; without `else` the false branch is undefined.
        case conditional(test: Expression, then: Expression, otherwise: Expression?)
        /// `f(args)`.
        case call(Expression, Arguments)
        /// `x | name(args)`; the operand is nil inside `{% filter %}` blocks.
        case filter(Expression?, name: String, Arguments)
        /// `x is name(args)` (`is not` wraps it in `not`).
        case test(Expression, name: String, Arguments)
    }

    let kind: Kind
    let location: JinjaLocation
    /// Whether a slice subscript occurs anywhere in this expression (only then can jinja2's
    /// constant folding change a result; see `ConstantFolding`). Computed from the direct
    /// children, so building a tree stays linear.
    let containsSlice: Bool

    init(_ kind: Kind, _ location: JinjaLocation) {
        self.kind = kind
        self.location = location
        containsSlice = Self.children(of: kind).contains { $0.containsSlice } || {
            if case .slice = kind { return true }
            return false
        }()
    }

    /// The direct subexpressions of `kind`.
    static func children(of kind: Kind) -> [Expression] {
        func args(_ a: Arguments) -> [Expression] {
            a.positional + a.keywords.map(\.value) + [a.splat, a.keywordSplat].compactMap { $0 }
        }
        switch kind {
        case .literal, .name: return []
        case .list(let items), .tuple(let items), .concat(let items): return items
        case .dict(let pairs): return pairs.flatMap { [$0.key, $0.value] }
        case .attribute(let base, _), .unary(_, let base): return [base]
        case .item(let a, let b), .binary(_, let a, let b), .and(let a, let b), .or(let a, let b): return [a, b]
        case .slice(let start, let stop, let step): return [start, stop, step].compactMap { $0 }
        case .compare(let first, let rest): return [first] + rest.map(\.1)
        case .conditional(let test, let then, let otherwise): return [test, then] + (otherwise.map { [$0] } ?? [])
        case .call(let callee, let a): return [callee] + args(a)
        case .filter(let operand, _, let a): return (operand.map { [$0] } ?? []) + args(a)
        case .test(let subject, _, let a): return [subject] + args(a)
        }
    }
}

extension Expression {
    /// A constant written in the template.
    enum Literal: Sendable {
        case none
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)
    }

    /// Call arguments: positional, keyword, and `*args` / `**kwargs` splats.
    struct Arguments: Sendable {
        var positional: [Expression] = []
        var keywords: [(name: String, value: Expression)] = []
        var splat: Expression?
        var keywordSplat: Expression?

        static let none = Arguments()
    }

    enum UnaryOperator: Sendable {
        case negate, plus, not
    }

    enum BinaryOperator: String, Sendable {
        case add = "+", subtract = "-", multiply = "*", divide = "/", floorDivide = "//", modulo = "%", power = "**"
    }

    enum CompareOperator: String, Sendable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case contains = "in", notContains = "not in"
    }
}
