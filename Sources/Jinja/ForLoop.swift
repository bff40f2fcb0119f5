/// `{% for target in iterable if condition %}body{% else %}otherwise{% endfor %}`.
struct ForLoop: Sendable {
    var target: AssignTarget
    var iterable: Expression
    var condition: Expression?
    var body: [Node]
    var otherwise: [Node]
    var recursive: Bool
}
