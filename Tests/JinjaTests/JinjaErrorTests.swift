import Jinja
import Testing

/// Errors are typed, name the construct, and point at the line and column.
@Suite struct JinjaErrorTests {
    func parseError(_ source: String) -> JinjaError? {
        do throws(JinjaError) {
            _ = try JinjaTemplate(source)
            return nil
        } catch {
            return error
        }
    }

    func renderError(_ source: String, _ context: JinjaContext = JinjaContext()) -> JinjaError? {
        do throws(JinjaError) {
            _ = try JinjaTemplate(source).render(context)
            return nil
        } catch {
            return error
        }
    }

    @Test func `a syntax error names what was expected and where`() {
        #expect(parseError("line one\n{{ 1 + }}") == .syntax(message: "unexpected 'end of print statement'", at: JinjaLocation(line: 2, column: 8)))
        #expect(parseError("{% for x in y %}\n  {% endif %}")
            == .syntax(message: "Encountered unknown tag 'endif'.", at: JinjaLocation(line: 2, column: 6)))
        #expect(parseError("{{ 'abc }}") == .syntax(message: "unexpected char '''", at: JinjaLocation(line: 1, column: 4)))
        guard case .syntax(let message, _)? = parseError("{% if x %}") else { Issue.record("no syntax error"); return }
        #expect(message.contains("'endif'"))
    }

    @Test func `raise_exception carries the template's message and location`() {
        #expect(renderError("ok\n  {{ raise_exception('Roles must alternate') }}")
            == .raised(message: "Roles must alternate", at: JinjaLocation(line: 2, column: 6)))
    }

    @Test func `unknown filters and tests are named`() {
        #expect(parseError("{{ x | frobnicate }}") == .unknownFilter(name: "frobnicate", at: JinjaLocation(line: 1, column: 8)))
        #expect(parseError("{{ x is frob }}") == .unknownTest(name: "frob", at: JinjaLocation(line: 1, column: 6)))
        // Inside an `if`, jinja2 only fails when the filter actually runs.
        #expect(parseError("{% if false %}{{ x | frobnicate }}{% endif %}") == nil)
        #expect(renderError("{% if true %}{{ x | frobnicate }}{% endif %}") == .unknownFilter(name: "frobnicate", at: JinjaLocation(line: 1, column: 21)))
    }

    @Test func `constructs outside the subset are reported as unsupported, not misread`() {
        #expect(parseError("{% include 'other.jinja' %}") == .unsupported(construct: "{% include %}", at: JinjaLocation(line: 1, column: 4)))
        #expect(parseError("{% extends 'base' %}") == .unsupported(construct: "{% extends %}", at: JinjaLocation(line: 1, column: 4)))
        #expect(parseError("{% for x in y recursive %}{% endfor %}") == .unsupported(construct: "recursive for loop", at: JinjaLocation(line: 1, column: 4)))
        #expect(renderError("{{ 'x'|urlize }}") == .unsupported(construct: "filter 'urlize'", at: JinjaLocation(line: 1, column: 8)))
        #expect(renderError("{{ cycler(1, 2) }}") == .unsupported(construct: "cycler()", at: JinjaLocation(line: 1, column: 4)))
    }

    @Test func `calling an undefined name fails like jinja2's Undefined`() {
        #expect(renderError("{{ nope() }}") == .undefined(name: "'nope' is undefined", at: JinjaLocation(line: 1, column: 4)))
        #expect(renderError("{{ 'x'() }}") == .notCallable(name: "'str' object is not callable", at: JinjaLocation(line: 1, column: 4)))
    }

    @Test func `the sandbox refuses mutation and internals, naming attribute and type`() {
        #expect(renderError("{% set l = [] %}{{ l.append(1) }}") == .security(attribute: "append", typeName: "list", at: JinjaLocation(line: 1, column: 21)))
        #expect(renderError("{{ ''.__class__.__mro__ }}") == .security(attribute: "__class__", typeName: "str", at: JinjaLocation(line: 1, column: 16)))
    }

    @Test func `type errors name the operation`() {
        guard case .typeMismatch(let operation, let message, let at)? = renderError("{{ 'a' + 1 }}") else {
            Issue.record("no type error"); return
        }
        #expect(operation == "+")
        #expect(message == "unsupported operand type(s) for +: 'str' and 'int'")
        #expect(at == JinjaLocation(line: 1, column: 8))
        #expect(renderError("{{ 1 / 0 }}") == .divisionByZero(at: JinjaLocation(line: 1, column: 6)))
        #expect(renderError("{{ 9223372036854775807 + 1 }}") == .integerOverflow(operation: "+", at: JinjaLocation(line: 1, column: 24)))
    }

    @Test func `hostile JSON is a typed error with a position`() {
        #expect(throws: JinjaError.invalidJSON(message: "expected ',' or '}'", at: JinjaLocation(line: 2, column: 3))) {
            try JinjaValue(json: "{\"a\": 1\n  \"b\"}")
        }
        #expect(throws: JinjaError.self) { try JinjaValue(json: String(repeating: "[", count: 10_000)) }
    }
}
