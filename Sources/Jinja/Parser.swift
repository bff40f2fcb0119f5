/// Builds the template AST from tokens with jinja2 3.1's grammar (pallets/jinja
/// `src/jinja2/parser.py`, reimplemented): statements here, expressions in
/// `Parser+Expressions.swift`. Nesting of brackets, operators and blocks is bounded so a
/// hostile template cannot overflow the stack.
struct Parser {
    var tokens: [Token]
    var pos = 0
    let maxDepth: Int
    var depth = 0
    /// Block tags currently open, innermost last, for end-of-template messages.
    var openTags: [String] = []

    init(tokens: [Token], maxDepth: Int) {
        self.tokens = tokens
        self.maxDepth = maxDepth
    }

    /// Parses a whole template.
    static func parse(_ tokens: [Token], maxDepth: Int) throws(JinjaError) -> [Node] {
        var parser = Parser(tokens: tokens, maxDepth: maxDepth)
        return try parser.subparse(endTags: nil)
    }

    // MARK: token stream

    var current: Token { tokens[pos] }
    var next: Token { tokens[min(pos + 1, tokens.count - 1)] }

    mutating func advance() {
        if pos < tokens.count - 1 { pos += 1 }
    }

    func isName(_ name: String) -> Bool {
        if case .name(name) = current.kind { return true }
        return false
    }

    func isOp(_ op: String) -> Bool {
        if case .op(op) = current.kind { return true }
        return false
    }

    mutating func skipName(_ name: String) -> Bool {
        guard isName(name) else { return false }
        advance()
        return true
    }

    mutating func skipOp(_ op: String) -> Bool {
        guard isOp(op) else { return false }
        advance()
        return true
    }

    func fail(_ message: String, at token: Token? = nil) -> JinjaError {
        .syntax(message: message, at: (token ?? current).location)
    }

    mutating func expectOp(_ op: String) throws(JinjaError) {
        guard skipOp(op) else { throw fail("expected token '\(op)', got '\(current.description)'") }
    }

    mutating func expectName() throws(JinjaError) -> String {
        guard case .name(let name) = current.kind else {
            throw fail("expected token 'name', got '\(current.description)'")
        }
        advance()
        return name
    }

    mutating func expectName(_ name: String) throws(JinjaError) {
        guard skipName(name) else { throw fail("expected token '\(name)', got '\(current.description)'") }
    }

    mutating func expectBlockEnd() throws(JinjaError) {
        guard current.kind == .blockEnd else {
            throw fail("expected token 'end of statement block', got '\(current.description)'")
        }
        advance()
    }

    /// Enters one level of nesting; pair with `defer { depth -= 1 }`.
    mutating func enter() throws(JinjaError) {
        depth += 1
        if depth > maxDepth { throw .limitExceeded(.nestingDepth(maxDepth), at: current.location) }
    }

    // MARK: statements

    /// Text, prints and statements up to one of `endTags` (left as the current token) or the
    /// end of the template.
    mutating func subparse(endTags: [String]?) throws(JinjaError) -> [Node] {
        var body: [Node] = []
        while true {
            let token = current
            switch token.kind {
            case .text(let text):
                body.append(Node(.text(text), token.location))
                advance()
            case .variableBegin:
                advance()
                let expression = try parseTuple()
                guard current.kind == .variableEnd else {
                    throw fail("expected token 'end of print statement', got '\(current.description)'")
                }
                advance()
                body.append(Node(.output(expression), token.location))
            case .blockBegin:
                advance()
                if let endTags, case .name(let name) = current.kind, endTags.contains(name) { return body }
                body.append(contentsOf: try parseStatement())
                try expectBlockEnd()
            case .eof:
                if let endTags {
                    let wanted = endTags.map { "'\($0)'" }.joined(separator: " or ")
                    throw fail("Unexpected end of template. Jinja was looking for the following tags: \(wanted)."
                        + (openTags.last.map { " The innermost block that needs to be closed is '\($0)'." } ?? ""))
                }
                return body
            default:
                throw fail("unexpected '\(token.description)'")
            }
        }
    }

    /// After a tag's arguments: `%}`, the body up to one of `endTags`, which stays current
    /// unless `dropEnd`.
    mutating func parseBody(endTags: [String], dropEnd: Bool) throws(JinjaError) -> [Node] {
        _ = skipOp(":")
        try expectBlockEnd()
        try enter()
        defer { depth -= 1 }
        let body = try subparse(endTags: endTags)
        if dropEnd { advance() }
        return body
    }

    mutating func parseStatement() throws(JinjaError) -> [Node] {
        let token = current
        guard case .name(let tag) = token.kind else { throw fail("tag name expected") }
        openTags.append(tag)
        defer { openTags.removeLast() }
        let loc = token.location
        switch tag {
        case "for": return [try parseFor()]
        case "if": return [try parseIf()]
        case "set": return [try parseSet()]
        case "macro": return [try parseMacro()]
        case "call": return [try parseCallBlock()]
        case "filter":
            advance()
            guard let filter = try parseFilter(nil, startInline: true) else { throw fail("expected a filter") }
            return [Node(.filterBlock(filter, body: try parseBody(endTags: ["endfilter"], dropEnd: true)), loc)]
        case "with": return [try parseWith()]
        case "print":
            advance()
            var nodes: [Node] = []
            while current.kind != .blockEnd {
                if !nodes.isEmpty { try expectOp(",") }
                nodes.append(Node(.output(try parseExpression()), loc))
            }
            return nodes
        case "break", "continue":
            advance()
            return [Node(tag == "break" ? .breakLoop : .continueLoop, loc)]
        case "generation":
            advance()
            return [Node(.scoped(try parseBody(endTags: ["endgeneration"], dropEnd: true)), loc)]
        case "block", "extends", "include", "import", "from", "autoescape":
            throw .unsupported(construct: "{% \(tag) %}", at: loc)
        default:
            throw fail("Encountered unknown tag '\(tag)'.")
        }
    }
}
