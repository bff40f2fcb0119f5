/// Call arguments, filters (`x | f(…)`) and tests (`x is t …`).
extension Parser {
    /// `( positional…, name=value…, *args, **kwargs )` with jinja2's ordering rules and an
    /// optional trailing comma.
    mutating func parseCallArguments() throws(JinjaError) -> Expression.Arguments {
        let open = current
        try expectOp("(")
        var args = Expression.Arguments()
        var needComma = false
        func ensure(_ ok: Bool) throws(JinjaError) {
            if !ok { throw fail("invalid syntax for function call expression", at: open) }
        }
        while !isOp(")") {
            if needComma {
                try expectOp(",")
                if isOp(")") { break }
            }
            if skipOp("*") {
                try ensure(args.splat == nil && args.keywordSplat == nil)
                args.splat = try parseExpression()
            } else if skipOp("**") {
                try ensure(args.keywordSplat == nil)
                args.keywordSplat = try parseExpression()
            } else if case .name(let key) = current.kind, next.kind == .op("=") {
                try ensure(args.keywordSplat == nil)
                advance()
                advance()
                args.keywords.append((key, try parseExpression()))
            } else {
                try ensure(args.splat == nil && args.keywordSplat == nil && args.keywords.isEmpty)
                args.positional.append(try parseExpression())
            }
            needComma = true
        }
        try expectOp(")")
        return args
    }

    /// The chain of `| filter`, `is test` and calls after a unary expression.
    mutating func parseFilterExpression(_ start: Expression) throws(JinjaError) -> Expression {
        var node = start
        while true {
            if isOp("|") {
                node = try parseFilter(node) ?? node
            } else if isName("is") {
                node = try parseTest(node)
            } else if isOp("(") {
                node = Expression(.call(node, try parseCallArguments()), current.location)
            } else {
                return node
            }
        }
    }

    /// `| name(args) | …`; with `startInline` the first filter has no leading `|` (the
    /// `{% filter %}` tag). Returns nil when there is no filter.
    mutating func parseFilter(_ start: Expression?, startInline: Bool = false) throws(JinjaError) -> Expression? {
        var node = start
        var inline = startInline
        while isOp("|") || inline {
            if !inline { advance() }
            inline = false
            let loc = current.location
            var name = try expectName()
            while skipOp(".") { name += "." + (try expectName()) }
            let args = isOp("(") ? try parseCallArguments() : .none
            node = Expression(.filter(node, name: name, args), loc)
        }
        return node
    }

    /// `is [not] name`, with arguments in parentheses or one bare primary argument
    /// (`is divisibleby 3`, `is sameas none`).
    mutating func parseTest(_ subject: Expression) throws(JinjaError) -> Expression {
        let loc = current.location
        advance()
        let negated = skipName("not")
        var name = try expectName()
        while skipOp(".") { name += "." + (try expectName()) }
        var args = Expression.Arguments.none
        switch current.kind {
        case .op("("):
            args = try parseCallArguments()
        case .name("else"), .name("or"), .name("and"):
            break
        case .name("is"):
            throw fail("You cannot chain multiple tests with is")
        case .name, .string, .integer, .float, .op("["), .op("{"):
            args.positional = [try parsePostfix(try parsePrimary())]
        default:
            break
        }
        let test = Expression(.test(subject, name: name, args), loc)
        return negated ? Expression(.unary(.not, test), loc) : test
    }
}
