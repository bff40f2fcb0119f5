import StructuredOutput
import Testing

@Suite struct JSONSchemaTests {
    @Test func `a schema reads into shapes with properties in order`() throws {
        let schema = try JSONSchema(json: """
            {"type":"object","title":"Person","properties":{
              "name":{"type":"string","maxLength":20,"description":"full name"},
              "age":{"type":"integer"},
              "tags":{"type":"array","items":{"enum":["a","b"]},"maxItems":3},
              "nick":{"type":["string","null"]},
              "kind":{"const":"person"}},
             "required":["name","age"],"additionalProperties":false}
            """)
        guard case .object(let o) = schema.shape else {
            Issue.record("not an object: \(schema.shape)")
            return
        }
        #expect(o.properties.map(\.name) == ["name", "age", "tags", "nick", "kind"])
        #expect(o.required == ["name", "age"])
        #expect(o.properties[0].shape == .string(minLength: 0, maxLength: 20))
        #expect(o.properties[1].shape == .integer)
        #expect(o.properties[2].shape == .array(items: .literal([.string("a"), .string("b")]), minItems: 0, maxItems: 3))
        #expect(o.properties[3].shape == .anyOf([.string(minLength: 0, maxLength: nil), .null]))
        #expect(o.properties[4].shape == .literal([.string("person")]))
    }

    @Test func `objects with a const first member become a tagged union`() throws {
        let schema = try JSONSchema(json: """
            {"anyOf":[
              {"type":"object","properties":{"op":{"const":"add"},"x":{"type":"number"}},"required":["op","x"]},
              {"type":"object","properties":{"op":{"const":"neg"}},"required":["op"]}]}
            """)
        guard case .taggedUnion(let key, let variants) = schema.shape else {
            Issue.record("not a tagged union: \(schema.shape)")
            return
        }
        #expect(key == "op")
        #expect(variants.map(\.tag) == ["add", "neg"])
        #expect(variants[0].rest.properties.map(\.name) == ["x"])
    }

    @Test(arguments: [
        (#"{"type":"integer","multipleOf":3}"#, "#", "multipleOf"),
        (#"{"type":"array","items":{"type":"integer"},"uniqueItems":true}"#, "#", "uniqueItems"),
        (#"{"type":"object","patternProperties":{"^x":{}}}"#, "#", "patternProperties"),
        (#"{"type":"object","propertyNames":{"maxLength":3}}"#, "#", "propertyNames"),
        (#"{"not":{"type":"null"}}"#, "#", "not"),
        (#"{"if":{"type":"string"},"then":{"maxLength":2}}"#, "#", "if"),
        (#"{"type":"array","contains":{"type":"null"}}"#, "#", "contains"),
        (#"{"type":"object","properties":{"d":{"type":"string","format":"duration"}}}"#, "#/properties/d", "format duration"),
        (#"{"type":"object","properties":{"p":{"type":"string","pattern":"(a)\\1"}}}"#, "#/properties/p", "pattern with a backreference"),
        (#"{"anyOf":[{"type":"string"},{"enum":["x"]}]}"#, "#", "anyOf alternatives that can begin with the same character"),
        (#"{"oneOf":[{"type":"integer"},{"type":"number"}]}"#, "#", "oneOf of integer and number (an integer matches both)"),
        (#"{"properties":{"a":{"type":"string"}},"minLength":2}"#, "#", "keywords of several types without a type"),
        (#"{"anyOf":[{"type":"null"}],"oneOf":[{"type":"null"}]}"#, "#", "anyOf beside oneOf"),
        (#"{"items":{"type":"integer"},"unevaluatedItems":false}"#, "#", "unevaluatedItems"),
        (#"{"$id":"https://x/a.json","properties":{"b":{"$id":"b.json","type":"null"}}}"#, "#/properties/b", "$id in a subschema"),
    ])
    func `unsupported keywords are typed errors naming the place`(_ json: String, _ path: String, _ keyword: String) {
        #expect(throws: EngineError.unsupportedSchema(path: path, keyword: keyword)) { try JSONSchema(json: json) }
    }

    @Test(arguments: [
        #"{"type":"strin"}"#, #"{"type":"string","maxLength":-1}"#, #"{"type":"array","items":{"type":"null"},"minItems":3,"maxItems":2}"#,
        #"{"enum":[]}"#, #"{"type":"object","properties":[]}"#, #"[1]"#, #"{"type":"integer","enum":["x"]}"#,
        #"{"type":"object","properties":{"a":false},"required":["a"]}"#, #"{"type":"object","additionalProperties":false,"required":["b"]}"#,
        #"{"type":"array","prefixItems":[{"type":"null"}],"items":false,"minItems":2}"#, #"{"type":"array","items":false,"minItems":1}"#,
        #"{"type":"object","required":["a","b"],"maxProperties":1}"#, #"{"anyOf":[false]}"#, #"{"$ref":3}"#,
    ])
    func `malformed schemas are invalid-schema errors`(_ json: String) {
        #expect {
            _ = try JSONSchema(json: json)
        } throws: { error in
            if case .invalidSchema? = error as? EngineError { return true }
            return false
        }
    }

    @Test func `the validator accepts matching documents and names the first violation`() throws {
        let schema = try JSONSchema(json: """
            {"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string","minLength":2},
             "l":{"type":"array","items":{"type":"boolean"},"minItems":1}},"required":["n"]}
            """)
        try schema.validate(json: #"{"n":3,"s":"ab","l":[true]}"#)
        try schema.validate(json: #"{"n":3.0}"#)
        let bad: [(String, String)] = [
            (#"{"s":"ab"}"#, "#"), (#"{"n":1.5}"#, "#/n"), (#"{"n":1,"s":"a"}"#, "#/s"), (#"{"n":1,"l":[]}"#, "#/l"),
            (#"{"n":1,"l":[1]}"#, "#/l/0"), (#"{"n":1,"x":1}"#, "#"), (#"[]"#, "#"),
        ]
        for (json, path) in bad {
            #expect {
                try schema.validate(json: json)
            } throws: { error in
                guard case .schemaViolation(let at, _)? = error as? EngineError else { return false }
                return at == path
            }
        }
    }
}
