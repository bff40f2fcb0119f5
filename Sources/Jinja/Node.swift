/// A statement node of the template AST.
struct Node: Sendable {
    indirect enum Kind: Sendable {
        /// Literal template text.
        case text(String)
        /// `{{ expression }}` (or `{% print %}`).
        case output(Expression)
        /// `{% if %}…{% elif %}…{% else %}…{% endif %}`: branches in order, then the else body.
        case conditional([(test: Expression, body: [Node])], otherwise: [Node])
        /// `{% for %}`.
        case forLoop(ForLoop)
        /// `{% set target = value %}`.
        case assign(AssignTarget, Expression)
        /// `{% set target | filters %}body{% endset %}`; `filter` has a nil innermost operand.
        case assignBlock(AssignTarget, filter: Expression?, body: [Node])
        /// `{% macro %}`.
        case macro(MacroDefinition)
        /// `{% call(params) macro(args) %}body{% endcall %}`.
        case callBlock(CallBlock)
        /// `{% filter name %}body{% endfilter %}`.
        case filterBlock(Expression, body: [Node])
        /// `{% with a = 1 %}body{% endwith %}`.
        case with([(target: AssignTarget, value: Expression)], body: [Node])
        /// `{% break %}`, `{% continue %}` (jinja2's loopcontrols extension, which HF enables).
        case breakLoop, continueLoop
        /// A body rendered in its own scope: HF's `{% generation %}` tag, a call block
        /// around `caller()`.
        case scoped([Node])
    }

    var kind: Kind
    var location: JinjaLocation

    init(_ kind: Kind, _ location: JinjaLocation) {
        self.kind = kind
        self.location = location
    }
}
