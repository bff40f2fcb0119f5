import Jinja
import Testing

/// Loops, recursion, nesting and output are bounded, so no template can hang or exhaust memory
/// or the stack; and random garbage never crashes the lexer, parser or renderer.
@Suite struct JinjaLimitsTests {
    func error(_ source: String, limits: JinjaLimits = .default) -> JinjaError? {
        do throws(JinjaError) {
            _ = try JinjaTemplate(source, limits: limits).render()
            return nil
        } catch {
            return error
        }
    }

    @Test func `loop iterations are bounded across the whole render`() {
        let nested = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
        #expect(error(nested) == .limitExceeded(.loopIterations(1_000_000), at: JinjaLocation(line: 1, column: 32)))
        let small = JinjaLimits(maxLoopIterations: 10)
        #expect(error("{% for i in range(10) %}{% endfor %}", limits: small) == nil)
        #expect(error("{% for i in range(11) %}{% endfor %}", limits: small) == .limitExceeded(.loopIterations(10), at: JinjaLocation(line: 1, column: 4)))
    }

    @Test func `macro recursion is bounded`() {
        #expect(error("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}")
            == .limitExceeded(.callDepth(64), at: JinjaLocation(line: 1, column: 20)))
        // Legitimate recursion below the bound works.
        #expect(throws: Never.self) {
            let text = try JinjaTemplate("{% macro f(n) %}{% if n > 0 %}{{ n }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(60) }}").render()
            #expect(text.hasPrefix("605958"))
        }
    }

    @Test func `deep nesting of brackets, operators and blocks is a limit error, not a stack overflow`() {
        #expect(error("{{ " + String(repeating: "(", count: 5000) + "1" + String(repeating: ")", count: 5000) + " }}")
            == .limitExceeded(.nestingDepth(64), at: JinjaLocation(line: 1, column: 68)))
        #expect(error("{{ " + String(repeating: "-", count: 5000) + "1 }}") != nil)
        #expect(error("{{ " + String(repeating: "not ", count: 5000) + "1 }}") != nil)
        #expect(error("{{ " + String(repeating: "[", count: 5000) + " }}") != nil)
        #expect(error(String(repeating: "{% if true %}", count: 5000)) != nil)
        // Up to the bound, nesting renders.
        #expect(throws: Never.self) {
            let text = try JinjaTemplate("{{ " + String(repeating: "(", count: 60) + "7" + String(repeating: ")", count: 60) + " }}").render()
            #expect(text == "7")
        }
    }

    @Test func `values nested without end are stopped`() {
        let source = "{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}"
        #expect(error(source) == .limitExceeded(.valueDepth(128), at: JinjaLocation(line: 1, column: 73)))
    }

    @Test func `output and string growth are bounded`() {
        let doubling = "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"
        #expect(error(doubling) == .limitExceeded(.outputLength(16 << 20), at: JinjaLocation(line: 1, column: 72)))
        #expect(error("{{ 'a' * 1000000000000 }}") == .limitExceeded(.outputLength(16 << 20), at: JinjaLocation(line: 1, column: 8)))
        #expect(error("{{ [1] * 1000000000000 }}") == .limitExceeded(.outputLength(16 << 20), at: JinjaLocation(line: 1, column: 8)))
        let small = JinjaLimits(maxOutputLength: 100)
        #expect(error("{% for i in range(50) %}ab{% endfor %}", limits: small) == nil)
        #expect(error("{% for i in range(51) %}ab{% endfor %}", limits: small) == .limitExceeded(.outputLength(100), at: JinjaLocation(line: 1, column: 25)))
    }

    @Test func `the sandbox caps range like jinja2`() {
        #expect(error("{{ range(100001)|length }}") == .rangeTooLarge(count: 100_001, at: JinjaLocation(line: 1, column: 4)))
        #expect(error("{{ range(100000)|length }}") == nil)
    }

    @Test func `random token soup never crashes`() {
        let pieces = ["{{", "}}", "{%", "%}", "{#", "#}", "-", "+", "for", "in", "if", "else", "elif", "endif", "endfor",
                      "set", "=", "macro", "endmacro", "call", "endcall", "m", "(", ")", "[", "]", "{", "}", "'a'", "\"",
                      "x", "1", "2.5", "|", "upper", "join", "is", "defined", "not", "and", "or", "~", ",", ":", ".",
                      "*", "**", "/", "//", "%", "loop", "namespace", "ns", "raw", "endraw", "\n", " ", "  ", "\\",
                      "break", "continue", "filter", "endfilter", "items", "tojson", "range", "<", "==", "é", "\r\n"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var rendered = 0
        for _ in 0..<3000 {
            let source = (0..<(1 + next(40))).map { _ in pieces[next(pieces.count)] }.joined(separator: next(3) == 0 ? " " : "")
            let context = JinjaContext(["x": [1, "two", ["k": "v"]], "m": "text"])
            do throws(JinjaError) {
                _ = try JinjaTemplate(source, limits: JinjaLimits(maxLoopIterations: 10_000)).segments(context)
                rendered += 1
            } catch {
                _ = error.location
            }
        }
        #expect(rendered > 0)
    }
}
