/// A frame of variables. Lookups walk outwards through parents; assignments always land in
/// the frame itself. jinja2's scoping falls out of which constructs open a frame: each `for`
/// iteration, each macro call, `with`, call and filter bodies and block `set`s do; `if` does
/// not. So `{% set %}` inside a loop body is gone after the iteration (hence `namespace()`).
final class Scope {
    private var variables: [String: Value] = [:]
    let parent: Scope?

    init(parent: Scope?) {
        self.parent = parent
    }

    /// The nearest binding of `name`.
    func lookup(_ name: String) -> Value? {
        var scope: Scope? = self
        while let s = scope {
            if let v = s.variables[name] { return v }
            scope = s.parent
        }
        return nil
    }

    /// Binds `name` in this frame.
    func set(_ name: String, _ value: Value) {
        variables[name] = value
    }
}
