/// jinja2's compile-time symbol analysis (pallets/jinja `src/jinja2/idtracking.py` 3.1.6,
/// reimplemented), reduced to the one thing a scope chain gets wrong on its own.
///
/// jinja2 gives every frame (the template, each loop body and `else`, macro and `caller`
/// bodies, `with`, block `set` and `filter` bodies) a symbol table built before rendering. A
/// name assigned in a frame (outside any `if`) before it is read there, and unknown to every
/// enclosing frame, starts the frame as *undefined*, not as the context's value: in
/// `{% for m in x %}{{ b }}{% endfor %}{% set b = 1 %}` the loop prints nothing even when the
/// context has `b`. Every other way a frame starts a name (reading the context, or the
/// enclosing frame's current value) is what looking the name up through the scope chain does
/// anyway, so the renderer only needs, per frame, the names to pre-bind as undefined.
enum ScopeAnalysis {
    /// Which frame of a node: the template itself, a block's body, or a `for`'s `else`.
    struct FrameKey: Hashable, Sendable {
        enum Role: Hashable, Sendable { case root, body, otherwise }
        var location: JinjaLocation
        var role: Role

        static let root = FrameKey(location: JinjaLocation(line: 0, column: 0), role: .root)
    }

    /// For every frame that has any, the names that start undefined.
    static func undefinedLocals(_ nodes: [Node]) -> [FrameKey: [String]] {
        var out: [FrameKey: [String]] = [:]
        analyze(.root, parent: nil, into: &out) { s in s.visit(nodes) }
        return out
    }

    /// jinja2's `Symbols`: names referenced in one frame and how each starts.
    final class Symbols {
        enum Start { case resolve, alias, undefined, parameter }
        let parent: Symbols?
        var refs: [String: Start] = [:]
        var stores: Set<String> = []
        var children: [(FrameKey, (Symbols) -> Void)] = []

        init(parent: Symbols?) { self.parent = parent }

        func copy() -> Symbols {
            let c = Symbols(parent: parent)
            c.refs = refs
            c.stores = stores
            return c
        }

        func findRef(_ name: String) -> Bool { refs[name] != nil || (parent?.findRef(name) ?? false) }

        func load(_ name: String) { if !findRef(name) { refs[name] = .resolve } }

        func store(_ name: String) {
            stores.insert(name)
            if refs[name] == nil { refs[name] = (parent?.findRef(name) ?? false) ? .alias : .undefined }
        }

        func parameter(_ name: String) {
            stores.insert(name)
            refs[name] = .parameter
        }

        /// After an `if`: names stored in any branch (and not before) start from the
        /// enclosing frame or the context, whatever the branches said.
        func branchUpdate(_ branches: [Symbols]) {
            let branchStores = branches.reduce(into: Set<String>()) { $0.formUnion($1.stores) }.subtracting(stores)
            for b in branches {
                refs.merge(b.refs) { _, new in new }
                stores.formUnion(b.stores)
                children += b.children
            }
            for name in branchStores { refs[name] = (parent?.findRef(name) ?? false) ? .alias : .resolve }
        }

        func visit(_ nodes: [Node]) { for node in nodes { visit(node) } }

        /// Queues a nested frame, analysed with this one as parent once this one is complete.
        func child(_ key: FrameKey, _ fill: @escaping (Symbols) -> Void) { children.append((key, fill)) }

        /// jinja2's `FrameSymbolVisitor`: what a statement does to this frame; nested frames
        /// are queued to analyse once this frame is complete.
        func visit(_ node: Node) {
            let key = FrameKey(location: node.location, role: .body)
            switch node.kind {
            case .text, .breakLoop, .continueLoop:
                break
            case .output(let e):
                load(e)
            case .conditional(let branches, let otherwise):
                visitIf(branches[0].test, branches[0].body, elifs: branches.dropFirst(), otherwise)
            case .forLoop(let loop):
                load(loop.iterable)
                child(key) { s in
                    s.parameters(loop.target)
                    s.visit(loop.body)
                }
                child(FrameKey(location: node.location, role: .otherwise)) { s in s.visit(loop.otherwise) }
            case .assign(let target, let value):
                load(value)
                store(target)
            case .assignBlock(let target, _, let body):
                store(target)
                child(key) { s in s.visit(body) }
            case .macro(let macro):
                store(macro.name)
                child(key) { s in s.visitMacro(macro) }
            case .callBlock(let block):
                load(block.call)
                child(key) { s in s.visitMacro(block.caller) }
            case .filterBlock(let filter, let body):
                load(filter)
                child(key) { s in
                    s.visit(body)
                    s.load(filter)
                }
            case .with(let assignments, let body):
                for a in assignments { load(a.value) }
                child(key) { s in
                    for a in assignments { s.parameters(a.target) }
                    s.visit(body)
                }
            case .scoped(let body):
                child(key) { s in s.visit(body) }
            }
        }

        /// `if`, shaped as jinja2's parser shapes it: each `elif` is an `if` without branches of
        /// its own, visited in turn in the middle branch.
        func visitIf(_ test: Expression, _ body: [Node], elifs: ArraySlice<(test: Expression, body: [Node])>,
                     _ otherwise: [Node]) {
            load(test)
            let bodySymbols = copy(), elifSymbols = copy(), elseSymbols = copy()
            bodySymbols.visit(body)
            for elif in elifs { elifSymbols.visitIf(elif.test, elif.body, elifs: [], []) }
            elseSymbols.visit(otherwise)
            branchUpdate([bodySymbols, elifSymbols, elseSymbols])
        }

        func visitMacro(_ macro: MacroDefinition) {
            for p in macro.parameters { parameter(p) }
            for d in macro.defaults { load(d) }
            visit(macro.body)
        }

        func load(_ e: Expression) {
            try? ASTWalk.walk(e, soft: false) { sub, _ in
                if case .name(let n) = sub.kind { self.load(n) }
            }
        }

        func store(_ target: AssignTarget) {
            switch target {
            case .name(let n): store(n)
            case .tuple(let targets): for t in targets { store(t) }
            case .namespaceAttribute(let ns, _): load(ns)
            }
        }

        func parameters(_ target: AssignTarget) {
            switch target {
            case .name(let n): parameter(n)
            case .tuple(let targets): for t in targets { parameters(t) }
            case .namespaceAttribute(let ns, _): load(ns)
            }
        }
    }

    private static func analyze(_ key: FrameKey, parent: Symbols?, into out: inout [FrameKey: [String]],
                                _ fill: (Symbols) -> Void) {
        let symbols = Symbols(parent: parent)
        fill(symbols)
        let undefined = symbols.refs.filter { $0.value == .undefined }.map(\.key).sorted()
        if !undefined.isEmpty { out[key] = undefined }
        for (childKey, childFill) in symbols.children {
            analyze(childKey, parent: symbols, into: &out, childFill)
        }
    }
}
