/// jinja2's compile-time constant folding (`nodes.Expr.as_const` in pallets/jinja
/// `src/jinja2/nodes.py`, applied by `optimizer.py` and the code generator): an expression
/// folds if evaluating it touches no variable, no call and no filter that needs the render
/// context; `and`, `or` and conditionals only evaluate the operands they need. The renderer
/// emulates it by evaluating with `foldingConstants` set, where those constructs fail.
///
/// It matters in one place. jinja2's code generator evaluates a constant `{{ }}` expression at
/// compile time, where a subscript goes through the sandbox's forgiving `getitem`, so
/// `{{ (1)[::-1] }}` prints nothing; evaluated at render time a slice is a plain Python
/// subscript and `{{ i[::-1] }}` raises `TypeError`. Nested subexpressions fold only when
/// the result is a plain constant (`hasSafeRepr`): `not (1)[::-1]` folds to `True`, but
/// `(1)[::-1]` alone inside a larger expression stays a render-time error.
enum ConstantFolding {
    /// Filters jinja2 marks `pass_context`, which `as_const` refuses to run.
    static let contextFilters: Set<String> = ["map", "select", "reject", "selectattr", "rejectattr", "random"]

    /// jinja2's `has_safe_repr`: the values the optimizer may inline as constants.
    static func hasSafeRepr(_ v: Value) -> Bool {
        switch v {
        case .none, .bool, .int, .double, .string: return true
        case .sequence(let s): return (s.kind == .list || s.kind == .tuple || s.kind == .range) && s.items.allSatisfy(hasSafeRepr)
        case .dict(let d): return d.values.allSatisfy(hasSafeRepr)
        default: return false
        }
    }
}
