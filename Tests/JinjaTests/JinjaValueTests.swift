import Jinja
import Testing

/// Context values from Swift: literals, loose Swift collections, and order-keeping JSON.
@Suite struct JinjaValueTests {
    @Test func `JSON keeps key order, types and escapes`() throws {
        let value = try JinjaValue(json: #"{"z": 1, "a": [true, null, 2.5, -3, 1e2], "s": "é\n\u00e9\ud83d\ude00\"", "o": {}}"#)
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.keys == ["z", "a", "s", "o"])
        #expect(object["a"] == [true, nil, 2.5, -3, 100.0])
        #expect(object["s"] == "é\né😀\"")
        #expect(object["o"] == .object(JinjaObject()))
    }

    @Test func `tojson prints objects in their JSON order`() throws {
        let tool = try JinjaValue(json: #"{"name": "f", "parameters": {"type": "object", "b": 1, "a": 2}}"#)
        let text = try JinjaTemplate("{{ tool|tojson }}").render(JinjaContext(["tool": tool]))
        #expect(text == #"{"name": "f", "parameters": {"type": "object", "b": 1, "a": 2}}"#)
    }

    @Test func `Swift dictionaries and arrays convert, with keys sorted`() throws {
        let value = JinjaValue(any: ["b": 1, "a": ["x", 2.5, true] as [Any], "n": Optional<Int>.none as Any] as [String: Any])
        let text = try JinjaTemplate("{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}").render(JinjaContext(["d": value]))
        #expect(text == "a=['x', 2.5, True];b=1;n=None;")
    }

    @Test func `literal objects keep their written order and setting a key keeps its place`() {
        var object: JinjaObject = ["role": "user", "content": "hi"]
        object["role"] = "assistant"
        object["name"] = "x"
        #expect(object.keys == ["role", "content", "name"])
        object["content"] = nil
        #expect(object.keys == ["role", "name"])
        #expect(object["name"] == "x")
    }

    @Test func `the chat context mirrors apply_chat_template's variables`() throws {
        let context = JinjaContext(messages: [["role": "user", "content": "q"]], addGenerationPrompt: true,
                                   bosToken: "<s>", extra: ["enable_thinking": false])
        let text = try JinjaTemplate("{{ tools is none }}{{ documents is none }}{{ add_generation_prompt }}{{ bos_token }}{{ eos_token is defined }}{{ enable_thinking }}").render(context)
        #expect(text == "TrueTrueTrue<s>FalseFalse")
        #expect(context.trustedNames == ["bos_token"])
    }

    @Test func `undefined context values behave like jinja2's Undefined`() throws {
        let text = try JinjaTemplate("[{{ u }}]{{ u is defined }}{{ u|default('d') }}").render(JinjaContext(["u": .undefined]))
        #expect(text == "[]Falsed")
    }

    @Test func `strftime_now formats the injected time`() throws {
        let now = JinjaDateTime(year: 2025, month: 3, day: 9, hour: 14, minute: 7, second: 0)
        let text = try JinjaTemplate("{{ strftime_now('%A %d %B %Y, %I:%M %p') }}").render(now: now)
        #expect(text == "Sunday 09 March 2025, 02:07 PM")
    }
}
