/// jinja2's default `Undefined`: renders as an empty string, is falsy, iterates as empty, and
/// fails (with `hint`) on anything else. An undefined made by the sandbox for an unsafe
/// attribute fails with a security error instead.
struct UndefinedValue {
    /// jinja2's message, e.g. `'x' is undefined` or `'dict object' has no attribute 'y'`.
    var hint: String
    /// Set when the sandbox refused the attribute: (attribute, Python type name).
    var unsafe: (attribute: String, typeName: String)?

    init(hint: String, unsafe: (attribute: String, typeName: String)? = nil) {
        self.hint = hint
        self.unsafe = unsafe
    }

    /// The error jinja2 raises when this value is used.
    func error(at location: JinjaLocation) -> JinjaError {
        if let unsafe { return .security(attribute: unsafe.attribute, typeName: unsafe.typeName, at: location) }
        return .undefined(name: hint, at: location)
    }
}
