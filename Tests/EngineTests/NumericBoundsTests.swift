import StructuredOutput
import TestSupport
import Testing

/// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`: the grammar writes exactly the
/// numbers within the bounds (within its digit caps), checked exhaustively for integers.
@Suite struct NumericBoundsTests {
    @Test(arguments: [
        #"{"type":"integer","minimum":0}"#, #"{"type":"integer","minimum":-7,"maximum":123}"#,
        #"{"type":"integer","exclusiveMinimum":-100,"exclusiveMaximum":1000}"#, #"{"type":"integer","maximum":-15}"#,
        #"{"type":"integer","minimum":5.5,"maximum":77.2}"#, #"{"type":"integer","minimum":10,"exclusiveMinimum":true}"#,
        #"{"type":"integer","minimum":1,"maximum":1}"#, #"{"type":"integer","minimum":-999,"maximum":-100}"#,
        #"{"type":"integer","minimum":0,"exclusiveMaximum":0.5}"#,
    ])
    func `integer bounds admit exactly the integers within them`(_ json: String) throws {
        let schema = try JSONSchema(json: json)
        let g = try Grammar(schema: schema)
        for i in -1200...1200 {
            let inside = (try? schema.validate(.number(Double(i)))) != nil
            #expect(g.recognizes(String(i)) == inside, "\(i)")
        }
        for bad in ["-0", "01", "+1", "1.0", "1e2", "00", "-"] { #expect(!g.recognizes(bad), "\(bad)") }
    }

    @Test func `integer bounds hold at the digit caps and far from zero`() throws {
        let g = try Grammar(schema: JSONSchema(json: #"{"type":"integer","minimum":123456789,"maximum":123457000}"#))
        for ok in ["123456789", "123456999", "123457000"] { #expect(g.recognizes(ok), "\(ok)") }
        for bad in ["123456788", "123457001", "1234567890", "12345678"] { #expect(!g.recognizes(bad), "\(bad)") }
        // Without an upper bound, integers stop at maxIntegerDigits digits.
        let open = try schemaGrammar(#"{"type":"integer","minimum":-5}"#) { $0.maxIntegerDigits = 4 }
        #expect(open.recognizes("9999") && !open.recognizes("10000") && open.recognizes("-5") && !open.recognizes("-6"))
        // A bound no number of at most maxIntegerDigits digits reaches is a typed error.
        #expect(throws: EngineError.unsupportedSchema(path: "#", keyword: "bounds that no number of at most 4 digits meets")) {
            try schemaGrammar(#"{"type":"integer","minimum":100000}"#) { $0.maxIntegerDigits = 4 }
        }
    }

    @Test(arguments: [
        (#"{"type":"number","minimum":0,"maximum":1}"#, ["0", "1", "0.5", "0.000001", "1.0", "1.000000", "0.999999"],
         ["-0.1", "1.000001", "1.1", "2", "-1", "01", "0.", ".5", "1e0"]),
        (#"{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1}"#, ["0.5", "0.000001", "0.999999"],
         ["0", "0.0", "1", "1.0", "-0.5"]),
        (#"{"type":"number","minimum":-2.5,"maximum":3.25}"#, ["-2.5", "-2.49", "-2", "0", "3.25", "3.2", "3.250000", "-0.5"],
         ["-2.51", "-2.500001", "3.251", "3.26", "4", "-3"]),
        (#"{"type":"number","minimum":0.1,"exclusiveMaximum":0.3}"#, ["0.1", "0.100001", "0.2", "0.299999", "0.25"],
         ["0.099999", "0.3", "0.30", "0.09", "0"]),
        (#"{"type":"number","maximum":-1000.5}"#, ["-1000.5", "-1000.6", "-1001", "-99999"], ["-1000.4", "-1000", "0", "1000.5"]),
        (#"{"type":"number","minimum":1e-7}"#, ["0.000001", "1", "12.5"], ["0", "0.0000001", "-1"]),
        (#"{"type":"number","minimum":5,"exclusiveMinimum":true}"#, ["5.000001", "6"], ["5", "5.0", "4.9"]),
    ])
    func `number bounds admit exactly the decimals within them`(_ json: String, _ good: [String], _ bad: [String]) throws {
        let schema = try JSONSchema(json: json)
        let g = try Grammar(schema: schema)
        for ok in good {
            #expect(g.recognizes(ok), "\(ok)")
            #expect(throws: Never.self, "\(ok)") { try schema.validate(json: ok) }
        }
        for no in bad { #expect(!g.recognizes(no), "\(no)") }
        _ = try GrammarWalk.expectValidDocuments(schema, count: 60)
    }

    @Test func `generated numbers keep fifteen significant digits so they compare as their decimals do`() throws {
        let g = try Grammar(schema: JSONSchema(json: #"{"type":"number","exclusiveMaximum":999999999999.9}"#))
        #expect(g.recognizes("999999999999.8") && !g.recognizes("999999999999.9"))
        #expect(!g.recognizes("999999999999.8999"))  // 16 digits
        #expect(g.recognizes("99999999999.899"))
    }

    @Test func `bounds read every spelling and fold into the tighter one`() throws {
        func range(_ json: String) throws -> NumericRange? {
            if case .range(let r) = try JSONSchema(json: json).shape { return r }
            return nil
        }
        #expect(try range(#"{"type":"number","minimum":1,"exclusiveMinimum":1}"#)?.lower == .init(1, exclusive: true))
        #expect(try range(#"{"type":"number","minimum":2,"exclusiveMinimum":1}"#)?.lower == .init(2))
        #expect(try range(#"{"type":"number","maximum":3,"exclusiveMaximum":true}"#)?.upper == .init(3, exclusive: true))
        #expect(try range(#"{"type":"integer","exclusiveMinimum":1.5,"maximum":9.9}"#) == NumericRange(integer: true, lower: .init(2), upper: .init(9)))
        #expect(try range(#"{"type":"integer","format":"int32"}"#)?.upper == .init(2_147_483_647))
        #expect(try JSONSchema(json: #"{"type":"number","format":"double"}"#).shape == .number)
    }

    @Test(arguments: [
        #"{"type":"integer","minimum":5,"maximum":4}"#, #"{"type":"integer","exclusiveMinimum":3,"exclusiveMaximum":4}"#,
        #"{"type":"number","minimum":1,"exclusiveMaximum":1}"#, #"{"type":"number","minimum":"1"}"#,
        #"{"type":"number","exclusiveMaximum":true}"#,
    ])
    func `empty or malformed bounds are invalid-schema errors`(_ json: String) {
        #expect {
            _ = try JSONSchema(json: json)
        } throws: { error in
            if case .invalidSchema? = error as? EngineError { return true }
            return false
        }
    }

    @Test func `the validator holds numbers to their bounds`() throws {
        let schema = try JSONSchema(json: #"{"type":"object","properties":{"p":{"type":"number","exclusiveMinimum":0,"maximum":1},"n":{"type":"integer","minimum":1}}}"#)
        try schema.validate(json: #"{"p":1,"n":1}"#)
        for (bad, path) in [(#"{"p":0}"#, "#/p"), (#"{"p":1.5}"#, "#/p"), (#"{"n":0}"#, "#/n"), (#"{"n":1.5}"#, "#/n"), (#"{"p":"1"}"#, "#/p")] {
            #expect {
                try schema.validate(json: bad)
            } throws: { error in
                guard case .schemaViolation(let at, _)? = error as? EngineError else { return false }
                return at == path
            }
        }
    }
}
