/// Something a template can call.
enum CallableValue {
    /// A `{% macro %}` (or a call block's `caller`) with the scope it was defined in; names it
    /// does not bind itself resolve there at call time, like jinja2's closures.
    case macro(MacroDefinition, Scope)
    /// A global function: `range`, `namespace`, `dict`, `raise_exception`, `strftime_now`.
    case global(GlobalFunction)
    /// A method bound to its receiver: `'a'.upper`, `d.items`, `loop.cycle`.
    indirect case method(Value, String)

    var typeName: String {
        switch self {
        case .macro: return "Macro"
        case .global: return "function"
        case .method: return "builtin_function_or_method"
        }
    }

    var repr: String {
        switch self {
        case .macro(let m, _): return "<Macro '\(m.name)'>"
        case .global(let g): return "<function \(g.rawValue)>"
        case .method(let receiver, let name): return "<built-in method \(name) of \(receiver.typeName) object>"
        }
    }
}
