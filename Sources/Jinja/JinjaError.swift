/// Errors of the Jinja layer. Every case names the construct and where in the template it is.
/// The kinds mirror jinja2's exceptions so tests can hold them to jinja2's behaviour:
/// `TemplateSyntaxError` → `.syntax`, `raise_exception` → `.raised`, `UndefinedError` →
/// `.undefined`, `SecurityError` → `.security`, `TypeError`/`ValueError` → `.typeMismatch` /
/// `.invalidValue`, `ZeroDivisionError` → `.divisionByZero`, the sandbox's `OverflowError` for
/// `range` → `.rangeTooLarge`, and "No filter/test named" → `.unknownFilter` / `.unknownTest`.
package enum JinjaError: Error, Sendable, Equatable {
    /// The template text is not valid Jinja (`message` says what was expected).
    case syntax(message: String, at: JinjaLocation)
    /// Valid Jinja that this interpreter deliberately does not run (`include`, `extends`, …).
    case unsupported(construct: String, at: JinjaLocation)
    /// The template called `raise_exception(message)`.
    case raised(message: String, at: JinjaLocation)
    /// An undefined value was used in a way jinja2's default `Undefined` forbids (arithmetic,
    /// attribute access, calling); `name` is jinja2's hint, e.g. `'x' is undefined`.
    case undefined(name: String, at: JinjaLocation)
    /// A filter name that neither jinja2 nor transformers defines.
    case unknownFilter(name: String, at: JinjaLocation)
    /// A test name (`is …`) that jinja2 does not define.
    case unknownTest(name: String, at: JinjaLocation)
    /// A call of something that is not callable (`name` describes the callee).
    case notCallable(name: String, at: JinjaLocation)
    /// An operation applied to values of the wrong types (Python's `TypeError`).
    case typeMismatch(operation: String, message: String, at: JinjaLocation)
    /// A value of the right type but wrong content (Python's `ValueError`), e.g. a failed unpack.
    case invalidValue(operation: String, message: String, at: JinjaLocation)
    /// The sandbox refused an attribute (`_`-prefixed internals, mutating methods).
    case security(attribute: String, typeName: String, at: JinjaLocation)
    /// `/`, `//` or `%` by zero.
    case divisionByZero(at: JinjaLocation)
    /// Integer arithmetic left the 64-bit range (Python's integers are unbounded; ours are not).
    case integerOverflow(operation: String, at: JinjaLocation)
    /// `range(…)` asked for more than the sandbox's 100 000 items.
    case rangeTooLarge(count: Int, at: JinjaLocation)
    /// A resource bound was hit; the render stops instead of running away.
    case limitExceeded(JinjaLimit, at: JinjaLocation)
    /// `JinjaValue(json:)` was given text that is not JSON; `at` is in the JSON text.
    case invalidJSON(message: String, at: JinjaLocation)

    /// Where in the template the error happened.
    package var location: JinjaLocation {
        switch self {
        case .syntax(_, let at), .unsupported(_, let at), .raised(_, let at), .undefined(_, let at),
             .unknownFilter(_, let at), .unknownTest(_, let at), .notCallable(_, let at),
             .typeMismatch(_, _, let at), .invalidValue(_, _, let at), .security(_, _, let at),
             .divisionByZero(let at), .integerOverflow(_, let at), .rangeTooLarge(_, let at),
             .limitExceeded(_, let at), .invalidJSON(_, let at):
            return at
        }
    }
}
