import Foundation
import StructuredOutput
import Testing

@Suite struct JSONValueTests {
    @Test func `a document parses with members in order and serializes compactly`() throws {
        let v = try JSONValue(parsing: #" { "b" : [1, 2.5, -0.125e1, true, null], "a": "x\"\\\/\n\u00e9\ud83d\ude00" } "#)
        #expect(v.members?.map(\.key) == ["b", "a"])
        #expect(v["a"] == .string("x\"\\/\né😀"))
        #expect(v["b"] == .array([.number(1), .number(2.5), .number(-1.25), .bool(true), .null]))
        #expect(v.serialized == #"{"b":[1,2.5,-1.25,true,null],"a":"x\"\\/\né😀"}"#)
        #expect(try JSONValue(parsing: v.serialized) == v)
    }

    @Test func `control characters are escaped when serialized`() throws {
        let s = JSONValue.string("a\u{01}\t\u{1F}")
        #expect(s.serialized == #""a\u0001\t\u001f""#)
        #expect(try JSONValue(parsing: s.serialized) == s)
    }

    @Test(arguments: [
        ("", 0), ("{", 1), ("[1,]", 3), ("{\"a\" 1}", 5), ("01", 1), ("1.", 2), ("-", 1), ("\"abc", 4), ("tru", 0),
        ("\"\\x\"", 3), ("\"\\ud800\"", 7), ("\"\\udc00\"", 7), ("\"a\nb\"", 2), ("[1] 2", 4), ("nul", 0),
    ])
    func `malformed JSON is a typed error with its offset`(_ text: String, _ offset: Int) {
        #expect {
            _ = try JSONValue(parsing: text)
        } throws: { error in
            guard case .malformedJSON(let at, _)? = error as? EngineError else { return false }
            return at == offset
        }
    }

    @Test func `hostile nesting is refused without exhausting the stack`() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: EngineError.self) { _ = try JSONValue(parsing: deep) }
        let ok = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        #expect(throws: Never.self) { _ = try JSONValue(parsing: ok) }
    }

    @Test func `our parser agrees with Foundation on random documents`() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let v = randomValue(depth: 0, using: &rng)
            let text = v.serialized
            let ours = try JSONValue(parsing: text)
            #expect(ours == v)
            let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            let back = try JSONSerialization.data(withJSONObject: theirs, options: [.fragmentsAllowed])
            #expect(try JSONValue(parsing: String(decoding: back, as: UTF8.self)).typeName == ours.typeName)
        }
    }

    func randomValue(depth: Int, using rng: inout SystemRandomNumberGenerator) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(Double(Int.random(in: -100_000...100_000, using: &rng)) / 8)
        case 3:
            let scalars = (0..<Int.random(in: 0...8, using: &rng)).map { _ in
                Unicode.Scalar([0x22, 0x5C, 0x0A, 0x41, 0xE9, 0x1F600, 0x7F, 0x01].randomElement(using: &rng)!)!
            }
            return .string(String(String.UnicodeScalarView(scalars)))
        case 4: return .array((0..<Int.random(in: 0...3, using: &rng)).map { _ in randomValue(depth: depth + 1, using: &rng) })
        default:
            return .object((0..<Int.random(in: 0...3, using: &rng)).map { i in
                .init("k\(i)", randomValue(depth: depth + 1, using: &rng))
            })
        }
    }
}
