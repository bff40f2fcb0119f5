import StructuredOutput
import Testing

@Suite struct GrammarTests {
    func grammar(_ json: String, whitespace: Int = 0, prefix: Grammar.Prefix = .none) throws -> Grammar {
        var o = Grammar.Options()
        o.maxWhitespace = whitespace
        o.maxStringLength = 12
        return try Grammar(schema: JSONSchema(json: json), prefix: prefix, options: o)
    }

    @Test func `an object accepts required and optional members in order and nothing else`() throws {
        let g = try grammar(#"{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"},"c":{"type":"boolean"}},"required":["b"]}"#)
        for ok in [#"{"b":""}"#, #"{"a":1,"b":"x"}"#, #"{"a":-20,"b":"x","c":true}"#, #"{"b":"x","c":false}"#] {
            #expect(g.recognizes(ok), "\(ok)")
        }
        for bad in [#"{}"#, #"{"a":1}"#, #"{"b":"x","a":1}"#, #"{"b":"x",}"#, #"{"b":"x"}  "#, #"{"b":"x"}x"#, #" {"b":"x"}"#,
                    #"{"b":"x","d":1}"#, #"{"a":01,"b":""}"#, #"{"a":1.5,"b":""}"#, #"{"b":"x","c":tru}"#, #"{"b":"x""#] {
            #expect(!g.recognizes(bad), "\(bad)")
        }
    }

    @Test func `strings escape properly, count characters and reject raw control bytes`() throws {
        let g = try grammar(#"{"type":"string","minLength":2,"maxLength":4}"#)
        for ok in [#""ab""#, #""\n\t""#, #""\u00e9x""#, #""é😀""#, #""\"\\\/""#, #""abcd""#, #""\uD7FFz""#] {
            #expect(g.recognizes(ok), "\(ok)")
        }
        for bad in [#""a""#, #""abcde""#, "\"a\nb\"", #""\x""#, #""\uD800a""#, #""\u00g0""#, "\"a\u{7F}", #""ab"#] {
            #expect(!g.recognizes(bad), "\(bad)")
        }
        // Invalid UTF-8 (a lone continuation byte, an overlong lead, a surrogate) never passes.
        for bytes: [UInt8] in [[0x22, 0x80, 0x61, 0x22], [0x22, 0xC0, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22]] {
            #expect(g.state(after: bytes) == nil)
        }
    }

    @Test func `numbers follow JSON syntax within the digit caps`() throws {
        let n = try grammar(#"{"type":"array","items":{"type":"number"}}"#)
        for ok in ["[0]", "[-0.5,12,3.25]", "[]", "[123456789012]", "[1.123456]"] { #expect(n.recognizes(ok), "\(ok)") }
        for bad in ["[00]", "[-]", "[1.]", "[.5]", "[+1]", "[1e5]", "[1234567890123]", "[1.1234567]", "[1,]"] {
            #expect(!n.recognizes(bad), "\(bad)")
        }
        let i = try grammar(#"{"type":"integer"}"#)
        #expect(i.recognizes("42") && i.recognizes("-7") && !i.recognizes("4.0"))
        // One space or newline ends a top-level number; nothing may follow it.
        #expect(i.recognizes("42\n") && !i.recognizes("42\n\n") && !i.recognizes("42 1"))
        #expect(try #require(i.state(after: Array("42 ".utf8))).isDone)
    }

    @Test func `arrays respect minItems and maxItems, nested arrays count separately`() throws {
        let g = try grammar(#"{"type":"array","items":{"type":"array","items":{"type":"null"},"minItems":1,"maxItems":2},"minItems":2,"maxItems":3}"#)
        for ok in ["[[null],[null,null]]", "[[null],[null],[null]]"] { #expect(g.recognizes(ok), "\(ok)") }
        for bad in ["[[null]]", "[[null],[null],[null],[null]]", "[[],[null]]", "[[null,null,null],[null]]", "[]"] {
            #expect(!g.recognizes(bad), "\(bad)")
        }
    }

    @Test func `enums, const, anyOf and tagged unions accept exactly their values`() throws {
        let e = try grammar(#"{"enum":["red","green",1,10,null,{"x":[1]}]}"#)
        for ok in [#""red""#, #""green""#, "1", "10", "null", #"{"x":[1]}"#] { #expect(e.recognizes(ok), "\(ok)") }
        for bad in [#""re""#, #""blue""#, "100", "2", #"{"x":[2]}"#] { #expect(!e.recognizes(bad), "\(bad)") }
        let a = try grammar(#"{"anyOf":[{"type":"string"},{"type":"null"},{"type":"integer"}]}"#)
        for ok in [#""s""#, "null", "-3"] { #expect(a.recognizes(ok), "\(ok)") }
        #expect(!a.recognizes("true"))
        let t = try grammar(#"{"oneOf":[{"properties":{"k":{"const":"a"},"v":{"type":"integer"}},"required":["k","v"]},{"properties":{"k":{"const":"b"}},"required":["k"]}]}"#)
        for ok in [#"{"k":"a","v":1}"#, #"{"k":"b"}"#] { #expect(t.recognizes(ok), "\(ok)") }
        for bad in [#"{"k":"a"}"#, #"{"k":"b","v":1}"#, #"{"k":"c"}"#, #"{"v":1,"k":"a"}"#] { #expect(!t.recognizes(bad), "\(bad)") }
    }

    @Test func `whitespace is allowed only up to the limit and only between tokens`() throws {
        let schema = #"{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}},"required":["a"]}"#
        let g = try grammar(schema, whitespace: 3)
        #expect(g.recognizes("{\n  \"a\" : [ 1 , 2 ]\n}"))
        #expect(!g.recognizes("{    \"a\":[]}"))
        #expect(!g.recognizes("{\"a\":[1 2]}"))
        #expect(!g.recognizes(" {\"a\":[]}"))
        #expect(!(try grammar(schema)).recognizes("{ \"a\":[]}"))
    }

    @Test func `a free-text prefix switches to the document after its trigger`() throws {
        let g = try grammar(#"{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}"#,
                            whitespace: 1, prefix: .freeTextUntil("<tool_call>"))
        #expect(g.recognizes("Just an answer < with <tool angle brackets."))
        #expect(g.recognizes("Let me check.<tool_call>\n{\"x\":3}"))
        #expect(g.recognizes("<tool_<tool_call>{\"x\":3}"))
        #expect(!g.recognizes("<tool_call>{\"x\":3} more"))
        #expect(!g.recognizes("<tool_call>{\"y\":3}"))
        #expect(!g.recognizes("<tool_call>{\"x\":"))
        let forced = try grammar(#"{"type":"null"}"#, whitespace: 1, prefix: .literal("<tool_call>"))
        #expect(forced.recognizes("<tool_call>\nnull") && !forced.recognizes("null"))
    }

    @Test func `the cost to finish is exact along a shortest completion`() throws {
        let g = try grammar(#"{"type":"object","properties":{"a":{"type":"array","items":{"type":"string","minLength":2},"minItems":2},"b":{"type":"boolean"}},"required":["a","b"]}"#)
        let shortest = #"{"a":["aa","aa"],"b":true}"#
        let start = try #require(g.state(after: []))
        #expect(g.minimumBytesToFinish(start) == shortest.utf8.count)
        let bytes = Array(shortest.utf8)
        for k in 0...bytes.count {
            let s = try #require(g.state(after: Array(bytes[0..<k])))
            #expect(g.minimumBytesToFinish(s) == bytes.count - k, "after \(k) bytes")
        }
    }
}
