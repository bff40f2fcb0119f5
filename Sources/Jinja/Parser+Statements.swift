/// The block statements: `for`, `if`, `set`, `macro`, `call`, `with`, and assignment targets.
extension Parser {
    mutating func parseFor() throws(JinjaError) -> Node {
        let loc = current.location
        advance()
        let target = try parseAssignTarget(endNames: ["in"])
        try expectName("in")
        let iterable = try parseTuple(withCondexpr: false, endNames: ["recursive"])
        let condition = skipName("if") ? try parseExpression() : nil
        if skipName("recursive") { throw .unsupported(construct: "recursive for loop", at: loc) }
        let body = try parseBody(endTags: ["endfor", "else"], dropEnd: false)
        var otherwise: [Node] = []
        if skipName("else") {
            otherwise = try parseBody(endTags: ["endfor"], dropEnd: true)
        } else {
            advance()
        }
        let loop = ForLoop(target: target, iterable: iterable, condition: condition, body: body,
                           otherwise: otherwise, recursive: false)
        return Node(.forLoop(loop), loc)
    }

    mutating func parseIf() throws(JinjaError) -> Node {
        let loc = current.location
        advance()
        var branches: [(test: Expression, body: [Node])] = []
        var otherwise: [Node] = []
        while true {
            let test = try parseTuple(withCondexpr: false)
            let body = try parseBody(endTags: ["elif", "else", "endif"], dropEnd: false)
            branches.append((test, body))
            if skipName("elif") { continue }
            if skipName("else") { otherwise = try parseBody(endTags: ["endif"], dropEnd: true) } else { advance() }
            break
        }
        return Node(.conditional(branches, otherwise: otherwise), loc)
    }

    mutating func parseSet() throws(JinjaError) -> Node {
        let loc = current.location
        advance()
        let target = try parseAssignTarget(withNamespace: true)
        if skipOp("=") { return Node(.assign(target, try parseTuple()), loc) }
        let filter = try parseFilter(nil)
        return Node(.assignBlock(target, filter: filter, body: try parseBody(endTags: ["endset"], dropEnd: true)), loc)
    }

    mutating func parseMacro() throws(JinjaError) -> Node {
        let loc = current.location
        advance()
        let name = try expectName()
        let (parameters, defaults) = try parseSignature()
        let body = try parseBody(endTags: ["endmacro"], dropEnd: true)
        return Node(.macro(Self.macro(name: name, parameters: parameters, defaults: defaults, body: body, at: loc)), loc)
    }

    static func macro(name: String, parameters: [String], defaults: [Expression], body: [Node],
                      at loc: JinjaLocation) -> MacroDefinition {
        let used = ASTWalk.names(in: body)
        return MacroDefinition(name: name, parameters: parameters, defaults: defaults, body: body,
                               usesVarargs: used.contains("varargs"), usesKwargs: used.contains("kwargs"),
                               usesCaller: used.contains("caller"), location: loc)
    }

    mutating func parseSignature() throws(JinjaError) -> ([String], [Expression]) {
        try expectOp("(")
        var parameters: [String] = []
        var defaults: [Expression] = []
        while !isOp(")") {
            if !parameters.isEmpty { try expectOp(",") }
            let token = current
            let name = try expectName()
            if skipOp("=") {
                defaults.append(try parseExpression())
            } else if !defaults.isEmpty {
                throw fail("non-default argument follows default argument", at: token)
            }
            parameters.append(name)
        }
        try expectOp(")")
        return (parameters, defaults)
    }

    mutating func parseCallBlock() throws(JinjaError) -> Node {
        let loc = current.location
        advance()
        var parameters: [String] = []
        var defaults: [Expression] = []
        if isOp("(") { (parameters, defaults) = try parseSignature() }
        let call = try parseExpression()
        guard case .call = call.kind else { throw fail("expected call", at: tokens[pos - 1]) }
        let body = try parseBody(endTags: ["endcall"], dropEnd: true)
        let caller = Self.macro(name: "caller", parameters: parameters, defaults: defaults, body: body, at: loc)
        return Node(.callBlock(CallBlock(call: call, caller: caller)), loc)
    }

    mutating func parseWith() throws(JinjaError) -> Node {
        let loc = current.location
        advance()
        var assignments: [(target: AssignTarget, value: Expression)] = []
        while current.kind != .blockEnd {
            if !assignments.isEmpty { try expectOp(",") }
            let target = try parseAssignTarget()
            try expectOp("=")
            assignments.append((target, try parseExpression()))
        }
        return Node(.with(assignments, body: try parseBody(endTags: ["endwith"], dropEnd: true)), loc)
    }

    /// A name, `ns.attr` (with `withNamespace`), or a tuple of targets, optionally in
    /// parentheses: jinja2's `parse_assign_target` with `simplified=True`.
    mutating func parseAssignTarget(endNames: [String] = [], withNamespace: Bool = false) throws(JinjaError) -> AssignTarget {
        var targets: [AssignTarget] = []
        var isTuple = false
        while true {
            if !targets.isEmpty { try expectOp(",") }
            if isTupleEnd(endNames) { break }
            targets.append(try parseTargetPrimary(withNamespace: withNamespace))
            if isOp(",") { isTuple = true } else { break }
        }
        if !isTuple, let only = targets.first { return only }
        if targets.isEmpty { throw fail("Expected an expression, got '\(current.description)'") }
        return .tuple(targets)
    }

    private mutating func parseTargetPrimary(withNamespace: Bool) throws(JinjaError) -> AssignTarget {
        let token = current
        switch token.kind {
        case .name(let name) where !["true", "false", "True", "False", "none", "None"].contains(name):
            advance()
            if withNamespace, skipOp(".") { return .namespaceAttribute(namespace: name, attribute: try expectName()) }
            return .name(name)
        case .op("("):
            advance()
            try enter()
            defer { depth -= 1 }
            let inner = try parseAssignTarget(withNamespace: withNamespace)
            try expectOp(")")
            return inner
        case .name, .string, .integer, .float:
            throw fail("can't assign to 'const'")
        default:
            throw fail("unexpected '\(token.description)'")
        }
    }

    func isTupleEnd(_ endNames: [String]) -> Bool {
        switch current.kind {
        case .variableEnd, .blockEnd, .op(")"): return true
        case .name(let name): return endNames.contains(name)
        default: return false
        }
    }
}
