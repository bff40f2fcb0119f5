/// A macro's signature and body; also the anonymous `caller` of a call block.
struct MacroDefinition: Sendable {
    var name: String
    var parameters: [String]
    /// Defaults of the last `defaults.count` parameters.
    var defaults: [Expression]
    var body: [Node]
    /// Whether the body reads `varargs`, `kwargs`, `caller`: jinja2 only accepts extra
    /// positional / keyword arguments / a caller when it does.
    var usesVarargs: Bool
    var usesKwargs: Bool
    var usesCaller: Bool
    /// The `{% macro %}` (or `{% call %}`) tag, which keys the macro's frame in `ScopeAnalysis`.
    var location: JinjaLocation
}
