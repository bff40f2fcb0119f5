/// `{% call(parameters) callee(args) %}body{% endcall %}`.
struct CallBlock: Sendable {
    /// The call expression (`.call`).
    var call: Expression
    /// The `caller` macro the body becomes.
    var caller: MacroDefinition
}
