import Foundation
import StructuredOutput
import Testing

/// `pattern`: the ECMA-262 subset compiled into the grammar, searched for as JSON Schema does,
/// and written inside JSON strings with the escapes JSON needs.
@Suite struct PatternTests {
    func string(_ pattern: String, _ extra: String = "") throws -> (JSONSchema, Grammar) {
        let schema = try JSONSchema(document: .object([.init("type", .string("string")), .init("pattern", .string(pattern))]
                                                        + (try JSONValue(parsing: "{\(extra)}").members ?? [])))
        return (schema, try Grammar(schema: schema))
    }

    @Test(arguments: [
        ("^[A-Z]{2}-\\d{3,4}$", ["AB-123", "ZZ-0000"], ["AB-12", "ab-123", "AB-12345", "AB123", "xAB-123"]),
        ("^(?:cat|dog)s?$", ["cat", "dogs", "cats"], ["", "catss", "bird", "cat "]),
        ("^a+b*c?$", ["a", "aab", "abbbc", "ac"], ["b", "abca", ""]),
        ("^[^0-9]*$", ["", "abc", "é ü", "!?"], ["a1", "9"]),
        ("^\\w+@\\w+\\.com$", ["a_1@b.com"], ["a@b.org", "@b.com", "a@.com"]),
        ("^.{2}$", ["ab", "é😀"], ["a", "abc", "a\n"]),
        ("^(ab){2,3}$", ["abab", "ababab"], ["ab", "abababab", "aba"]),
        ("^\\u00e9\\x41[\\u0100-\\u017f]$", ["éAŁ"], ["éAz", "eAŁ"]),
        ("^[\\s\\S]?$", ["", " ", "\t", "x"], ["xy"]),
        ("^(?<year>\\d{4})-\\d{2}$", ["2024-05"], ["2024-5"]),
        ("^[a-c-]$", ["a", "-", "c"], ["d", "b-"]),
        ("^\\d+(\\.\\d+)?$", ["1", "12.50"], ["1.", ".5"]),
        ("^x{2,}$", ["xx", "xxxxx"], ["x", ""]),
        ("^[\\d-z]$", ["5", "-", "z"], ["y"]),
        ("^\\{\\}[{]$", ["{}{"], ["{}"]),
        ("^a{,2}$", ["a{,2}"], ["a", "aa"]),
    ])
    func `anchored patterns admit exactly their strings`(_ pattern: String, _ good: [String], _ bad: [String]) throws {
        let (schema, g) = try string(pattern)
        for ok in good {
            let json = JSONValue.string(ok).serialized
            #expect(g.recognizes(json), "\(pattern) should take \(json)")
            #expect(throws: Never.self, "\(json)") { try schema.validate(json: json) }
        }
        for no in bad {
            let json = JSONValue.string(no).serialized
            #expect(!g.recognizes(json), "\(pattern) should refuse \(json)")
            #expect(throws: EngineError.self, "\(json)") { try schema.validate(json: json) }
        }
        _ = try GrammarWalk.expectValidDocuments(schema, count: 20)
    }

    @Test func `an unanchored pattern matches anywhere in the string`() throws {
        let (schema, g) = try string("b+c")
        for ok in [#""bc""#, #""abbbcd""#, #""xx bc""#] { #expect(g.recognizes(ok), "\(ok)") }
        for no in [#""b c""#, #""cb""#, #""""#] { #expect(!g.recognizes(no), "\(no)") }
        let (start, gs) = try string("^ab")
        #expect(gs.recognizes(#""abz""#) && !gs.recognizes(#""zab""#))
        try start.validate(json: #""abzz""#)
        let (_, ge) = try string("yz$")
        #expect(ge.recognizes(#""xyz""#) && !ge.recognizes(#""yzx""#))
        _ = try GrammarWalk.expectValidDocuments(schema, count: 20)
    }

    @Test func `quotes, backslashes and control characters in a pattern are written as JSON escapes`() throws {
        let (schema, g) = try string(#"^a"b\\c\nd\te$"#)
        #expect(g.recognizes(#""a\"b\\c\nd\te""#))
        #expect(!g.recognizes("\"a\"b\""))  // a raw quote ends the string
        #expect(!g.recognizes(#""a\"b\\c\u000ad\te""#))  // one spelling per character
        let (_, controls) = try string(#"^[\x00-\x1f]$"#)
        #expect(controls.recognizes(#""\u0001""#) && controls.recognizes(#""\b""#) && controls.recognizes(#""\u001f""#))
        #expect(!controls.recognizes(#""\u0020""#))
        let docs = try GrammarWalk.expectValidDocuments(schema, count: 5)
        // (A final space or newline may end any document.)
        #expect(docs.allSatisfy { $0.trimmingCharacters(in: .whitespacesAndNewlines) == #""a\"b\\c\nd\te""# }, "\(docs)")
    }

    @Test func `lengths bound a pattern and the pattern bounds the length`() throws {
        let (schema, g) = try string("^[a-z]+$", #""minLength":3,"maxLength":5"#)
        for ok in [#""abc""#, #""abcde""#] { #expect(g.recognizes(ok), "\(ok)") }
        for no in [#""ab""#, #""abcdef""#] { #expect(!g.recognizes(no), "\(no)") }
        _ = try GrammarWalk.expectValidDocuments(schema, count: 30)
        // Without maxLength a pattern with no end stops at maxStringLength characters…
        var o = Grammar.Options()
        o.maxStringLength = 6
        let capped = try Grammar(schema: JSONSchema(json: #"{"type":"string","pattern":"^x+$"}"#), options: o)
        #expect(capped.recognizes(#""xxxxxx""#) && !capped.recognizes(#""xxxxxxx""#))
        // …unless it needs more.
        let long = try Grammar(schema: JSONSchema(json: #"{"type":"string","pattern":"^x{9}$"}"#), options: o)
        #expect(long.recognizes(#""xxxxxxxxx""#))
        // Lengths and pattern that exclude each other are a typed error.
        #expect {
            _ = try Grammar(schema: JSONSchema(json: #"{"type":"string","pattern":"^x{9}$","maxLength":3}"#))
        } throws: { error in
            if case .invalidSchema("#", _)? = error as? EngineError { return true }
            return false
        }
    }

    @Test(arguments: [
        ("(a)\\1", "pattern with a backreference"), ("(?=a)b", "pattern with lookahead"), ("(?!a)b", "pattern with lookahead"),
        ("(?<=a)b", "pattern with lookbehind"), ("(?<!a)b", "pattern with lookbehind"), ("\\bword", "pattern with a word boundary (\\b)"),
        ("\\Bx", "pattern with a word boundary (\\B)"), ("\\p{L}", "pattern with a Unicode property escape"),
        ("\\k<n>", "pattern with a named backreference"), ("a{2000}", "pattern with a repetition count above 1000"),
        ("\\a", "pattern with the escape \\a"), ("\\ud800", "pattern with a lone surrogate"),
    ])
    func `constructs outside the subset are typed errors naming the keyword`(_ pattern: String, _ keyword: String) {
        #expect(throws: EngineError.unsupportedSchema(path: "#/properties/p", keyword: keyword)) {
            try JSONSchema(document: .object([.init("type", .string("object")), .init("properties", .object([
                .init("p", .object([.init("type", .string("string")), .init("pattern", .string(pattern))])),
            ]))]))
        }
    }

    @Test(arguments: ["(ab", "a{3,1}", "*a", "a**", "[b-a]", "[ab", "(?x)", "^*", "a)"])
    func `malformed patterns are invalid-schema errors`(_ pattern: String) {
        #expect {
            _ = try JSONSchema(document: .object([.init("type", .string("string")), .init("pattern", .string(pattern))]))
        } throws: { error in
            if case .invalidSchema("#/pattern", _)? = error as? EngineError { return true }
            return false
        }
    }

    @Test func `a pattern whose automaton explodes is refused, not built`() throws {
        // (a|b)*a(a|b){20}: the last 21 characters must be remembered, 2^21 states.
        #expect(throws: EngineError.unsupportedSchema(path: "#", keyword: "pattern or format too large to compile (over 50000 automaton states)")) {
            _ = try Grammar(schema: JSONSchema(json: #"{"type":"string","pattern":"^[ab]*a[ab]{20}$"}"#))
        }
    }
}
