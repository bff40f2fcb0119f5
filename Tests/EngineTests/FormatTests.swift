import StructuredOutput
import TestSupport
import Testing

/// `format`: the grammar writes each format in one spelling; the validator accepts the format
/// as its RFC defines it.
@Suite struct FormatTests {
    static let cases: [(format: String, generated: [String], acceptedOnly: [String], invalid: [String])] = [
        ("date", ["2024-02-29", "2000-02-29", "1999-12-31", "2023-04-30"], ["0000-02-29", "0999-01-01"],
         ["2023-02-29", "1900-02-29", "2024-04-31", "2024-13-01", "2024-1-01", "24-01-01", "2024-00-10", "2024-01-32"]),
        ("time", ["23:59:59Z", "00:00:00+05:30", "12:30:00.123456-08:00"], ["12:30:00z", "12:30:00.1234567Z"],
         ["24:00:00Z", "12:60:00Z", "12:30:00", "12:30Z", "12:30:00+5:00"]),
        ("date-time", ["2024-02-29T12:00:00Z", "1970-01-01T00:00:00.5+01:00"], ["2024-02-29t12:00:00z"],
         ["2024-02-29 12:00:00Z", "2024-02-30T12:00:00Z", "2024-02-29T12:00:00"]),
        ("uuid", ["123e4567-e89b-12d3-a456-426614174000"], ["123E4567-E89B-12D3-A456-426614174000"],
         ["123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400", "g23e4567-e89b-12d3-a456-426614174000"]),
        ("email", ["ada@example.com", "first.last+tag@mail.example.org"], ["\"odd name\"@example.com", "a!b@example.com"],
         ["ada", "ada@", "@example.com", "a@@b.com", "a b@example.com", ".a@example.com"]),
        ("uri", ["https://example.com", "http://a.b:8080/p/q%20r?x=1&y=2#frag", "ftp://host/"], ["urn:isbn:0451450523", "mailto:a@b.c", "HTTP://X.Y", "git+ssh://host/repo"],
         ["example.com", "://x", "http://a b", "http://x/%zz"]),
        ("ipv4", ["192.168.0.1", "0.0.0.0", "255.255.255.255"], [], ["256.1.1.1", "1.2.3", "01.2.3.4", "1.2.3.4.5"]),
        ("hostname", ["example", "a-b.example.com"], [], ["-a.com", "a-.com", "a..b", "a_b"]),
    ]

    @Test(arguments: 0..<cases.count)
    func `each format is generated in one spelling and validated as its RFC says`(_ i: Int) throws {
        let c = Self.cases[i]
        let schema = try JSONSchema(json: #"{"type":"string","format":"\#(c.format)"}"#)
        let g = try Grammar(schema: schema)
        for ok in c.generated {
            #expect(g.recognizes(JSONValue.string(ok).serialized), "\(c.format): \(ok) should be generated")
            #expect(throws: Never.self, "\(ok)") { try schema.validate(.string(ok)) }
        }
        for ok in c.acceptedOnly {
            #expect(!g.recognizes(JSONValue.string(ok).serialized), "\(c.format): \(ok) is not the generated spelling")
            #expect(throws: Never.self, "\(ok)") { try schema.validate(.string(ok)) }
        }
        for no in c.invalid {
            #expect(!g.recognizes(JSONValue.string(no).serialized), "\(c.format): \(no)")
            #expect(throws: EngineError.self, "\(no)") { try schema.validate(.string(no)) }
        }
        _ = try GrammarWalk.expectValidDocuments(schema, count: 30)
    }

    @Test func `format and pattern together admit their intersection`() throws {
        let schema = try JSONSchema(json: #"{"type":"string","format":"date","pattern":"^2024-"}"#)
        let g = try Grammar(schema: schema)
        #expect(g.recognizes(#""2024-02-29""#) && !g.recognizes(#""2023-01-01""#) && !g.recognizes(#""2024-02-30""#))
        let docs = try GrammarWalk.expectValidDocuments(schema, count: 20)
        #expect(docs.allSatisfy { $0.hasPrefix("\"2024-") })
    }

    @Test func `unknown formats are refused with their name`() {
        for name in ["ipv6", "duration", "uri-reference", "regex", "binary"] {
            #expect(throws: EngineError.unsupportedSchema(path: "#", keyword: "format \(name)")) {
                try JSONSchema(json: #"{"type":"string","format":"\#(name)"}"#)
            }
        }
        // A string format on a number is no constraint (format applies to strings only).
        #expect(throws: Never.self) { try JSONSchema(json: #"{"type":["integer","string"],"format":"date"}"#) }
    }
}
