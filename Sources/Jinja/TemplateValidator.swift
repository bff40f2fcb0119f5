/// The compile-time checks jinja2 makes before rendering: unknown filter and test names
/// (except in soft frames, see `ASTWalk`, where jinja2 defers them to run time), and
/// `break` / `continue` outside a loop (a Python `SyntaxError` in jinja2's generated code).
enum TemplateValidator {
    static func validate(_ nodes: [Node]) throws(JinjaError) {
        try ASTWalk.walk(nodes, soft: false) { e, soft throws(JinjaError) in
            guard !soft else { return }
            switch e.kind {
            case .filter(_, let name, _) where !Renderer.filterNames.contains(name):
                throw .unknownFilter(name: name, at: e.location)
            case .test(_, let name, _) where !Renderer.testNames.contains(name):
                throw .unknownTest(name: name, at: e.location)
            default:
                break
            }
        }
        try checkLoopControl(nodes, inLoop: false)
    }

    static func checkLoopControl(_ nodes: [Node], inLoop: Bool) throws(JinjaError) {
        for node in nodes {
            switch node.kind {
            case .breakLoop, .continueLoop:
                if !inLoop {
                    let word = if case .breakLoop = node.kind { "break" } else { "continue" }
                    throw .syntax(message: "'\(word)' outside loop", at: node.location)
                }
            case .conditional(let branches, let otherwise):
                for branch in branches { try checkLoopControl(branch.body, inLoop: inLoop) }
                try checkLoopControl(otherwise, inLoop: inLoop)
            case .forLoop(let loop):
                try checkLoopControl(loop.body, inLoop: true)
                try checkLoopControl(loop.otherwise, inLoop: inLoop)
            case .assignBlock(_, _, let body), .filterBlock(_, let body), .with(_, let body):
                try checkLoopControl(body, inLoop: inLoop)
            case .macro(let macro):
                try checkLoopControl(macro.body, inLoop: false)
            case .callBlock(let block):
                try checkLoopControl(block.caller.body, inLoop: false)
            case .scoped(let body):
                try checkLoopControl(body, inLoop: false)
            case .text, .output, .assign:
                break
            }
        }
    }
}
