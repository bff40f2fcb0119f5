/// Executes a parsed template: statements, scopes, loops and macro calls, writing
/// origin-carrying text. One renderer serves one render call (it counts iterations, call depth
/// and output against `JinjaLimits`).
final class Renderer {
    let limits: JinjaLimits
    let now: JinjaDateTime
    let undefinedLocals: [ScopeAnalysis.FrameKey: [String]]
    private var iterations = 0
    var callDepth = 0
    private var emitted = 0
    /// Set while evaluating a `{{ }}` expression the way jinja2's compiler folds constant
    /// output (see `ConstantFolding`).
    var foldingConstants = false

    /// What a statement list ended with: normally, or by `{% break %}` / `{% continue %}`.
    enum Flow {
        case normal, breakLoop, continueLoop
    }

    init(limits: JinjaLimits, now: JinjaDateTime, undefinedLocals: [ScopeAnalysis.FrameKey: [String]]) {
        self.limits = limits
        self.now = now
        self.undefinedLocals = undefinedLocals
    }

    /// A new frame inside `parent` for the construct at `key`, with the names jinja2 starts
    /// undefined there already bound (see `ScopeAnalysis`).
    func frame(_ parent: Scope, _ location: JinjaLocation, _ role: ScopeAnalysis.FrameKey.Role = .body) -> Scope {
        let scope = Scope(parent: parent)
        for name in undefinedLocals[ScopeAnalysis.FrameKey(location: location, role: role)] ?? [] {
            scope.set(name, .undefined("'\(name)' is undefined"))
        }
        return scope
    }

    /// Renders `nodes` with `context` over the global functions.
    func run(_ nodes: [Node], context: JinjaContext) throws(JinjaError) -> JinjaString {
        let globals = Scope(parent: nil)
        for function in GlobalFunction.allCases { globals.set(function.rawValue, .callable(.global(function))) }
        let contextScope = Scope(parent: globals)
        for (name, value) in context.variables.entries {
            contextScope.set(name, Value(value, origin: context.trustedNames.contains(name) ? .template : .data))
        }
        var out = JinjaString.empty
        let root = Scope(parent: contextScope)
        for name in undefinedLocals[.root] ?? [] { root.set(name, .undefined("'\(name)' is undefined")) }
        _ = try render(nodes, in: root, into: &out)
        return out
    }

    /// A `{{ }}` expression. jinja2 evaluates a constant one at compile time and prints the
    /// result; if that raises, it evaluates again at render time and raises there.
    func evaluateOutput(_ expression: Expression, _ scope: Scope) throws(JinjaError) -> Value {
        if expression.containsSlice {
            foldingConstants = true
            let folded = try? evaluate(expression, scope)
            foldingConstants = false
            if let folded { return folded }
        }
        return try evaluate(expression, scope)
    }

    /// Appends `text` to `out`, counting it against the output bound.
    func emit(_ text: JinjaString, into out: inout JinjaString, at location: JinjaLocation) throws(JinjaError) {
        emitted += text.count
        if emitted > limits.maxOutputLength { throw .limitExceeded(.outputLength(limits.maxOutputLength), at: location) }
        out.append(text)
    }

    /// Throws if `value`, a container just built, nests deeper than the value bound.
    func checkDepth(_ value: Value, at location: JinjaLocation) throws(JinjaError) -> Value {
        if value.nestingDepth(upTo: limits.maxValueDepth) > limits.maxValueDepth {
            throw .limitExceeded(.valueDepth(limits.maxValueDepth), at: location)
        }
        return value
    }

    /// Throws if a computed string or list is longer than the output bound.
    func checkSize(_ count: Int, at location: JinjaLocation) throws(JinjaError) {
        if count > limits.maxOutputLength { throw .limitExceeded(.outputLength(limits.maxOutputLength), at: location) }
    }

    func render(_ nodes: [Node], in scope: Scope, into out: inout JinjaString) throws(JinjaError) -> Flow {
        for node in nodes {
            let loc = node.location
            switch node.kind {
            case .text(let text):
                try emit(JinjaString(text, origin: .template), into: &out, at: loc)
            case .output(let expression):
                try emit(try evaluateOutput(expression, scope).str, into: &out, at: loc)
            case .conditional(let branches, let otherwise):
                var body = otherwise
                for branch in branches {
                    if try evaluate(branch.test, scope).isTruthy {
                        body = branch.body
                        break
                    }
                }
                let flow = try render(body, in: scope, into: &out)
                if flow != .normal { return flow }
            case .forLoop(let loop):
                try renderFor(loop, in: scope, into: &out, at: loc)
            case .assign(let target, let expression):
                try assign(target, try evaluate(expression, scope), in: scope, at: loc)
            case .assignBlock(let target, let filter, let body):
                var buffer = JinjaString.empty
                let flow = try render(body, in: frame(scope, loc), into: &buffer)
                if flow != .normal { return flow }
                var value = Value.string(buffer)
                if let filter { value = try evaluateFilter(filter, operand: value, scope) }
                try assign(target, value, in: scope, at: loc)
            case .macro(let macro):
                scope.set(macro.name, .callable(.macro(macro, scope)))
            case .callBlock(let block):
                guard case .call(let callee, let arguments) = block.call.kind else { continue }
                var args = try evaluateArguments(arguments, scope, at: block.call.location)
                args.keywords.append(("caller", .callable(.macro(block.caller, scope))))
                let result = try call(try evaluate(callee, scope), args, at: block.call.location)
                try emit(result.str, into: &out, at: loc)
            case .filterBlock(let filter, let body):
                var buffer = JinjaString.empty
                let flow = try render(body, in: frame(scope, loc), into: &buffer)
                if flow != .normal { return flow }
                try emit(try evaluateFilter(filter, operand: .string(buffer), scope).str, into: &out, at: loc)
            case .with(let assignments, let body):
                let inner = frame(scope, loc)
                for (target, expression) in assignments {
                    try assign(target, try evaluate(expression, scope), in: inner, at: loc)
                }
                let flow = try render(body, in: inner, into: &out)
                if flow != .normal { return flow }
            case .breakLoop:
                return .breakLoop
            case .continueLoop:
                return .continueLoop
            case .scoped(let body):
                var buffer = JinjaString.empty
                _ = try render(body, in: frame(scope, loc), into: &buffer)
                try emit(buffer, into: &out, at: loc)
            }
        }
        return .normal
    }

    /// A `for` loop. Each iteration gets a fresh frame with `loop`; an `if` filter runs lazily
    /// as the loop advances (see `LoopState`).
    func renderFor(_ loop: ForLoop, in scope: Scope, into out: inout JinjaString, at loc: JinjaLocation) throws(JinjaError) {
        let items = try evaluate(loop.iterable, scope).iterate(at: loop.iterable.location)
        var accept: ((Value) throws(JinjaError) -> Bool)?
        if let condition = loop.condition {
            accept = { (item: Value) throws(JinjaError) -> Bool in
                try self.countIteration(at: loc)
                let probe = Scope(parent: scope)
                try self.assign(loop.target, item, in: probe, at: loc)
                return try self.evaluate(condition, probe).isTruthy
            }
        }
        let state = LoopState(items: items, depth0: 0, accept: accept)
        // jinja2 clears its "run the else block" flag at the end of each body, which `break`
        // and `continue` skip: `else` runs unless some iteration finished normally.
        var finishedAnIteration = false
        var i = 0
        while let item = try state.item(at: i) {
            try countIteration(at: loc)
            state.index0 = i
            let iteration = frame(scope, loc)
            iteration.set("loop", .loop(state))
            try assign(loop.target, item, in: iteration, at: loc)
            let flow = try render(loop.body, in: iteration, into: &out)
            if flow == .normal { finishedAnIteration = true }
            if flow == .breakLoop { break }
            i += 1
        }
        if !finishedAnIteration { _ = try render(loop.otherwise, in: frame(scope, loc, .otherwise), into: &out) }
    }

    private func countIteration(at loc: JinjaLocation) throws(JinjaError) {
        iterations += 1
        if iterations > limits.maxLoopIterations {
            throw .limitExceeded(.loopIterations(limits.maxLoopIterations), at: loc)
        }
    }

    /// Binds `value` to `target`: a name, a tuple (Python unpacking), or a namespace attribute.
    func assign(_ target: AssignTarget, _ value: Value, in scope: Scope, at loc: JinjaLocation) throws(JinjaError) {
        switch target {
        case .name(let name):
            scope.set(name, value)
        case .tuple(let targets):
            guard let items = value.iterated else {
                throw .typeMismatch(operation: "unpacking", message: "cannot unpack non-iterable \(value.typeName) object", at: loc)
            }
            guard items.count == targets.count else {
                let message = items.count < targets.count
                    ? "not enough values to unpack (expected \(targets.count), got \(items.count))"
                    : "too many values to unpack (expected \(targets.count))"
                throw .invalidValue(operation: "unpacking", message: message, at: loc)
            }
            for (t, v) in zip(targets, items) { try assign(t, v, in: scope, at: loc) }
        case .namespaceAttribute(let name, let attribute):
            guard case .namespace(let namespace)? = scope.lookup(name) else {
                throw .typeMismatch(operation: "namespace assignment",
                                    message: "cannot assign attribute on non-namespace object", at: loc)
            }
            namespace.attributes[JinjaString(attribute, origin: .template)] = value
        }
    }
}
