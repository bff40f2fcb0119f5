/// Expressions, lowest precedence first: conditional, `or`, `and`, `not`, comparisons,
/// `+ -`, `~`, `* / // %`, `**`, unary `- +`, then primaries with postfix `.x`, `[x]`, calls,
/// and filters / tests (which bind tighter than any binary operator, as in jinja2).
extension Parser {
    /// A comma-separated expression list becomes a tuple (jinja2 `parse_tuple`).
    mutating func parseTuple(withCondexpr: Bool = true, endNames: [String] = [],
                             explicitParentheses: Bool = false) throws(JinjaError) -> Expression {
        let loc = current.location
        var items: [Expression] = []
        var isTuple = false
        while true {
            if !items.isEmpty { try expectOp(",") }
            if isTupleEnd(endNames) { break }
            items.append(try parseExpression(withCondexpr: withCondexpr))
            if isOp(",") { isTuple = true } else { break }
        }
        if !isTuple {
            if let only = items.first { return only }
            if !explicitParentheses { throw fail("Expected an expression, got '\(current.description)'") }
        }
        return Expression(.tuple(items), loc)
    }

    mutating func parseExpression(withCondexpr: Bool = true) throws(JinjaError) -> Expression {
        try enter()
        defer { depth -= 1 }
        return withCondexpr ? try parseConditional() : try parseOr()
    }

    mutating func parseConditional() throws(JinjaError) -> Expression {
        var expr = try parseOr()
        while skipName("if") {
            let test = try parseOr()
            let otherwise = skipName("else") ? try parseConditional() : nil
            expr = Expression(.conditional(test: test, then: expr, otherwise: otherwise), expr.location)
        }
        return expr
    }

    mutating func parseOr() throws(JinjaError) -> Expression {
        var left = try parseAnd()
        while case .name("or") = current.kind {
            let loc = current.location
            advance()
            left = Expression(.or(left, try parseAnd()), loc)
        }
        return left
    }

    mutating func parseAnd() throws(JinjaError) -> Expression {
        var left = try parseNot()
        while case .name("and") = current.kind {
            let loc = current.location
            advance()
            left = Expression(.and(left, try parseNot()), loc)
        }
        return left
    }

    mutating func parseNot() throws(JinjaError) -> Expression {
        guard isName("not") else { return try parseCompare() }
        let loc = current.location
        advance()
        try enter()
        defer { depth -= 1 }
        return Expression(.unary(.not, try parseNot()), loc)
    }

    mutating func parseCompare() throws(JinjaError) -> Expression {
        let expr = try parseMath1()
        var operations: [(Expression.CompareOperator, Expression)] = []
        while true {
            let op: Expression.CompareOperator
            switch current.kind {
            case .op("=="): op = .equal
            case .op("!="): op = .notEqual
            case .op("<"): op = .less
            case .op("<="): op = .lessOrEqual
            case .op(">"): op = .greater
            case .op(">="): op = .greaterOrEqual
            case .name("in"): op = .contains
            case .name("not") where next.kind == .name("in"):
                advance()
                op = .notContains
            default:
                return operations.isEmpty ? expr : Expression(.compare(expr, operations), expr.location)
            }
            advance()
            operations.append((op, try parseMath1()))
        }
    }

    mutating func parseMath1() throws(JinjaError) -> Expression {
        var left = try parseConcat()
        while isOp("+") || isOp("-") {
            let loc = current.location
            let op: Expression.BinaryOperator = isOp("+") ? .add : .subtract
            advance()
            left = Expression(.binary(op, left, try parseConcat()), loc)
        }
        return left
    }

    mutating func parseConcat() throws(JinjaError) -> Expression {
        let first = try parseMath2()
        var parts = [first]
        while skipOp("~") { parts.append(try parseMath2()) }
        return parts.count == 1 ? first : Expression(.concat(parts), first.location)
    }

    mutating func parseMath2() throws(JinjaError) -> Expression {
        var left = try parsePow()
        while true {
            let op: Expression.BinaryOperator
            switch current.kind {
            case .op("*"): op = .multiply
            case .op("/"): op = .divide
            case .op("//"): op = .floorDivide
            case .op("%"): op = .modulo
            default: return left
            }
            let loc = current.location
            advance()
            left = Expression(.binary(op, left, try parsePow()), loc)
        }
    }

    mutating func parsePow() throws(JinjaError) -> Expression {
        var left = try parseUnary()
        while isOp("**") {
            let loc = current.location
            advance()
            left = Expression(.binary(.power, left, try parseUnary()), loc)
        }
        return left
    }

    /// `-x` and `+x` take a unary operand without filters, then postfix and filters apply to
    /// the result: `-1|abs` is `(-1)|abs`, as in jinja2.
    mutating func parseUnary(withFilter: Bool = true) throws(JinjaError) -> Expression {
        let loc = current.location
        var node: Expression
        if isOp("-") || isOp("+") {
            let op: Expression.UnaryOperator = isOp("-") ? .negate : .plus
            advance()
            try enter()
            defer { depth -= 1 }
            node = Expression(.unary(op, try parseUnary(withFilter: false)), loc)
        } else {
            node = try parsePrimary()
        }
        node = try parsePostfix(node)
        return withFilter ? try parseFilterExpression(node) : node
    }

    mutating func parsePrimary() throws(JinjaError) -> Expression {
        let token = current
        let loc = token.location
        switch token.kind {
        case .name(let name):
            advance()
            switch name {
            case "true", "True": return Expression(.literal(.bool(true)), loc)
            case "false", "False": return Expression(.literal(.bool(false)), loc)
            case "none", "None": return Expression(.literal(.none), loc)
            default: return Expression(.name(name), loc)
            }
        case .string(var text):
            advance()
            while case .string(let more) = current.kind {
                text += more
                advance()
            }
            return Expression(.literal(.string(text)), loc)
        case .integer(let i):
            advance()
            return Expression(.literal(.int(i)), loc)
        case .float(let d):
            advance()
            return Expression(.literal(.double(d)), loc)
        case .op("("):
            advance()
            let inner = try parseTuple(explicitParentheses: true)
            try expectOp(")")
            return inner
        case .op("["):
            advance()
            var items: [Expression] = []
            while !isOp("]") {
                if !items.isEmpty { try expectOp(",") }
                if isOp("]") { break }
                items.append(try parseExpression())
            }
            try expectOp("]")
            return Expression(.list(items), loc)
        case .op("{"):
            advance()
            var pairs: [(key: Expression, value: Expression)] = []
            while !isOp("}") {
                if !pairs.isEmpty { try expectOp(",") }
                if isOp("}") { break }
                let key = try parseExpression()
                try expectOp(":")
                pairs.append((key, try parseExpression()))
            }
            try expectOp("}")
            return Expression(.dict(pairs), loc)
        default:
            throw fail("unexpected '\(token.description)'")
        }
    }

    mutating func parsePostfix(_ start: Expression) throws(JinjaError) -> Expression {
        var node = start
        while true {
            let token = current
            if skipOp(".") {
                switch current.kind {
                case .name(let name):
                    advance()
                    node = Expression(.attribute(node, name), token.location)
                case .integer(let i):
                    advance()
                    node = Expression(.item(node, Expression(.literal(.int(i)), token.location)), token.location)
                default:
                    throw fail("expected name or number")
                }
            } else if skipOp("[") {
                var keys: [Expression] = []
                while !isOp("]") {
                    if !keys.isEmpty { try expectOp(",") }
                    keys.append(try parseSubscribed())
                }
                try expectOp("]")
                let key = keys.count == 1 ? keys[0] : Expression(.tuple(keys), token.location)
                node = Expression(.item(node, key), token.location)
            } else if isOp("(") {
                node = Expression(.call(node, try parseCallArguments()), node.location)
            } else {
                return node
            }
        }
    }

    /// A subscript or a slice `a:b:c` with any part omitted.
    mutating func parseSubscribed() throws(JinjaError) -> Expression {
        let loc = current.location
        var start: Expression?
        if !skipOp(":") {
            let expr = try parseExpression()
            guard skipOp(":") else { return expr }
            start = expr
        }
        func endsPart(_ p: Parser) -> Bool { p.isOp("]") || p.isOp(",") || p.isOp(":") }
        let stop = endsPart(self) ? nil : try parseExpression()
        var step: Expression?
        if skipOp(":"), !isOp("]"), !isOp(",") { step = try parseExpression() }
        return Expression(.slice(start: start, stop: stop, step: step), loc)
    }
}
