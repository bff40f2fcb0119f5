/// Visits every expression of a template AST, telling the visitor whether the expression sits
/// in what jinja2's compiler calls a soft frame (inside an `if` or a conditional expression,
/// not under a later loop, macro, call, filter or with body). jinja2 reports unknown filters
/// and tests at compile time except in soft frames, where it defers the error until the
/// filter or test actually runs.
enum ASTWalk {
    typealias Visitor = (Expression, _ soft: Bool) throws(JinjaError) -> Void

    static func walk(_ nodes: [Node], soft: Bool, _ visit: Visitor) throws(JinjaError) {
        for node in nodes { try walk(node, soft: soft, visit) }
    }

    static func walk(_ node: Node, soft: Bool, _ visit: Visitor) throws(JinjaError) {
        switch node.kind {
        case .text, .breakLoop, .continueLoop:
            break
        case .output(let e), .assign(_, let e):
            try walk(e, soft: soft, visit)
        case .conditional(let branches, let otherwise):
            for branch in branches {
                try walk(branch.test, soft: true, visit)
                try walk(branch.body, soft: true, visit)
            }
            try walk(otherwise, soft: true, visit)
        case .forLoop(let loop):
            try walk(loop.iterable, soft: soft, visit)
            if let condition = loop.condition { try walk(condition, soft: false, visit) }
            try walk(loop.body, soft: false, visit)
            try walk(loop.otherwise, soft: soft, visit)
        case .assignBlock(_, let filter, let body):
            if let filter { try walk(filter, soft: false, visit) }
            try walk(body, soft: false, visit)
        case .macro(let macro):
            try walk(macro, visit)
        case .callBlock(let block):
            try walk(block.call, soft: soft, visit)
            try walk(block.caller, visit)
        case .filterBlock(let filter, let body):
            try walk(filter, soft: false, visit)
            try walk(body, soft: false, visit)
        case .with(let assignments, let body):
            for assignment in assignments { try walk(assignment.value, soft: soft, visit) }
            try walk(body, soft: false, visit)
        case .scoped(let body):
            try walk(body, soft: false, visit)
        }
    }

    /// The variable names `nodes` read (to know whether a macro uses `varargs`, `kwargs`,
    /// `caller`).
    static func names(in nodes: [Node]) -> Set<String> {
        var names: Set<String> = []
        try? walk(nodes, soft: false) { e, _ in
            if case .name(let n) = e.kind { names.insert(n) }
        }
        return names
    }

    static func walk(_ macro: MacroDefinition, _ visit: Visitor) throws(JinjaError) {
        for d in macro.defaults { try walk(d, soft: false, visit) }
        try walk(macro.body, soft: false, visit)
    }

    static func walk(_ e: Expression, soft: Bool, _ visit: Visitor) throws(JinjaError) {
        try visit(e, soft)
        // Both branches and the test of a conditional expression are soft in jinja2.
        let childSoft: Bool
        if case .conditional = e.kind { childSoft = true } else { childSoft = soft }
        for child in Expression.children(of: e.kind) { try walk(child, soft: childSoft, visit) }
    }
}
