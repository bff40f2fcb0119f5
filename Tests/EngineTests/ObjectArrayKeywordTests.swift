import StructuredOutput
import TestSupport
import Testing

/// `additionalProperties`, `minProperties`/`maxProperties`, `prefixItems`, `enum`/`const` of any
/// JSON value, and schemas that allow any value.
@Suite struct ObjectArrayKeywordTests {
    @Test func `additionalProperties false or absent generates only the declared members`() throws {
        for json in [#"{"properties":{"a":{"type":"integer"}},"additionalProperties":false}"#, #"{"properties":{"a":{"type":"integer"}}}"#] {
            let g = try Grammar(schema: JSONSchema(json: json))
            #expect(g.recognizes(#"{"a":1}"#) && g.recognizes("{}") && !g.recognizes(#"{"a":1,"b":2}"#))
        }
        // The lenient validator follows JSON Schema: only false refuses an undeclared member.
        let open = try JSONSchema(json: #"{"properties":{"a":{"type":"integer"}}}"#)
        try open.validate(JSONValue(parsing: #"{"a":1,"b":2}"#), lenient: true)
        #expect(throws: EngineError.self) { try open.validate(json: #"{"a":1,"b":2}"#) }
        let closed = try JSONSchema(json: #"{"properties":{"a":{"type":"integer"}},"additionalProperties":false}"#)
        #expect(throws: EngineError.self) { try closed.validate(JSONValue(parsing: #"{"a":1,"b":2}"#), lenient: true) }
    }

    @Test func `additionalProperties as a schema generates extra members after the declared ones with other names`() throws {
        let schema = try JSONSchema(json: #"{"type":"object","properties":{"id":{"type":"integer"},"name":{"type":"string"}},"required":["id"],"additionalProperties":{"type":"integer","minimum":0}}"#)
        let g = try Grammar(schema: schema)
        for ok in [#"{"id":1}"#, #"{"id":1,"x":2}"#, #"{"id":1,"name":"n","x":2,"y z":3}"#, #"{"id":1,"idx":5}"#, #"{"id":1,"nam":0}"#] {
            #expect(g.recognizes(ok), "\(ok)")
            #expect(throws: Never.self, "\(ok)") { try schema.validate(json: ok) }
        }
        for no in [#"{"x":2,"id":1}"#, #"{"id":1,"x":-2}"#, #"{"id":1,"x":2,"name":"n"}"#, #"{"id":1,"id":2}"#, #"{"id":1,"":2}"#, #"{"id":1,"x":"s"}"#] {
            #expect(!g.recognizes(no), "\(no)")
        }
        _ = try GrammarWalk.expectValidDocuments(schema, count: 40)
    }

    @Test func `a dictionary schema writes any keys, counted by minProperties and maxProperties`() throws {
        let schema = try JSONSchema(json: #"{"type":"object","additionalProperties":{"type":"boolean"},"minProperties":1,"maxProperties":2}"#)
        let g = try Grammar(schema: schema)
        for ok in [#"{"a":true}"#, #"{"a":true,"é😀":false}"#] { #expect(g.recognizes(ok), "\(ok)") }
        for no in ["{}", #"{"a":true,"b":true,"c":false}"#] { #expect(!g.recognizes(no), "\(no)") }
        _ = try GrammarWalk.expectValidDocuments(schema, count: 40)
        let any = try JSONSchema(json: #"{"type":"object","additionalProperties":true}"#)
        #expect(try Grammar(schema: any).recognizes(#"{"a":[1,{"b":null}],"c":"d"}"#))
        _ = try GrammarWalk.expectValidDocuments(any, count: 40)
    }

    @Test func `minProperties and maxProperties over declared members are met statically`() throws {
        // maxProperties 2 with one required: at most one optional member, the first declared.
        let max = try JSONSchema(json: #"{"properties":{"a":{"type":"null"},"b":{"type":"null"},"c":{"type":"null"}},"required":["c"],"maxProperties":2}"#)
        let gm = try Grammar(schema: max)
        #expect(gm.recognizes(#"{"a":null,"c":null}"#) && gm.recognizes(#"{"c":null}"#) && !gm.recognizes(#"{"b":null,"c":null}"#))
        // minProperties 2: the first two optional members become required.
        let min = try JSONSchema(json: #"{"properties":{"a":{"type":"null"},"b":{"type":"null"},"c":{"type":"null"}},"minProperties":2}"#)
        let gn = try Grammar(schema: min)
        #expect(gn.recognizes(#"{"a":null,"b":null}"#) && gn.recognizes(#"{"a":null,"b":null,"c":null}"#) && !gn.recognizes(#"{"a":null}"#))
        for s in [max, min] { _ = try GrammarWalk.expectValidDocuments(s, count: 20) }
        try min.validate(json: #"{"b":null,"c":null}"#)
        #expect(throws: EngineError.self) { try min.validate(json: #"{"c":null}"#) }
        #expect(throws: EngineError.unsupportedSchema(path: "#", keyword: "minProperties above the declared properties (extra members need additionalProperties)")) {
            try Grammar(schema: JSONSchema(json: #"{"properties":{"a":{"type":"null"}},"minProperties":2}"#))
        }
    }

    @Test func `prefixItems writes a tuple, then items for the rest or nothing more`() throws {
        let closed = try JSONSchema(json: #"{"type":"array","prefixItems":[{"type":"integer"},{"type":"string","maxLength":3}],"items":false,"minItems":1}"#)
        let g = try Grammar(schema: closed)
        for ok in ["[1]", #"[1,"ab"]"#] { #expect(g.recognizes(ok), "\(ok)") }
        for no in ["[]", #"["ab"]"#, #"[1,"ab",2]"#, "[1,2]"] { #expect(!g.recognizes(no), "\(no)") }
        let rest = try JSONSchema(json: #"{"type":"array","prefixItems":[{"const":"head"}],"items":{"type":"boolean"},"minItems":3,"maxItems":4}"#)
        let r = try Grammar(schema: rest)
        for ok in [#"["head",true,false]"#, #"["head",true,false,true]"#] { #expect(r.recognizes(ok), "\(ok)") }
        for no in [#"["head",true]"#, #"["head",true,true,true,true]"#, #"[true,"head",true]"#] { #expect(!r.recognizes(no), "\(no)") }
        // Draft 7's spelling: items as an array, additionalItems for the rest.
        let old = try JSONSchema(json: #"{"type":"array","items":[{"type":"null"}],"additionalItems":{"type":"integer"}}"#)
        #expect(old.shape == .tuple(prefix: [.null], rest: .integer, minItems: 0, maxItems: nil))
        for s in [closed, rest, old] { _ = try GrammarWalk.expectValidDocuments(s, count: 30) }
        try closed.validate(json: #"[1,"ab"]"#)
        #expect(throws: EngineError.self) { try closed.validate(json: "[1,\"ab\",3]") }
    }

    @Test func `enum and const of any JSON value are written as given and compared as JSON`() throws {
        let schema = try JSONSchema(json: #"{"enum":[{"a":1,"b":[true,null]},[1,"x"],2.5,null,false,"s"]}"#)
        let g = try Grammar(schema: schema)
        for ok in [#"{"a":1,"b":[true,null]}"#, #"[1,"x"]"#, "2.5", "null", "false", #""s""#] {
            #expect(g.recognizes(ok), "\(ok)")
            #expect(throws: Never.self) { try schema.validate(json: ok) }
        }
        for no in [#"{"a":1}"#, "[1]", "2", "true"] { #expect(!g.recognizes(no), "\(no)") }
        // Member order does not matter to JSON, nor 1 against 1.0.
        try schema.validate(json: #"{"b":[true,null],"a":1.0}"#)
        let c = try JSONSchema(json: #"{"const":{"k":[1,2]}}"#)
        #expect(try Grammar(schema: c).recognizes(#"{"k":[1,2]}"#))
        // enum values the other keywords exclude are dropped, and none left is an error.
        #expect(try JSONSchema(json: #"{"type":"string","enum":["a","bbbb",3],"maxLength":2}"#).shape == .literal([.string("a")]))
        #expect(throws: EngineError.invalidSchema(path: "#/enum", reason: "no value of it satisfies the schema's other keywords")) {
            try JSONSchema(json: #"{"enum":[1,2],"minimum":5}"#)
        }
    }

    @Test func `an open schema generates any JSON value to a bounded depth`() throws {
        for json in ["{}", "true", #"{"type":"array"}"#, #"{"description":"anything"}"#] {
            let schema = try JSONSchema(json: json)
            let docs = try GrammarWalk.expectValidDocuments(schema, count: 30)
            #expect(!docs.isEmpty)
        }
        var o = Grammar.Options()
        o.maxAnyDepth = 1
        let g = try Grammar(schema: JSONSchema(json: "{}"), options: o)
        #expect(g.recognizes("[1,\"a\",null]") && g.recognizes(#"{"k":true}"#) && !g.recognizes("[[1]]"))
        // anyOf with an open alternative is any value (Pydantic's Optional[Any]).
        #expect(try JSONSchema(json: #"{"anyOf":[{},{"type":"null"}],"default":null}"#).shape == .any)
        // A required member without a schema is any value.
        let ghost = try JSONSchema(json: #"{"type":"object","properties":{},"required":["ghost"]}"#)
        #expect(try Grammar(schema: ghost).recognizes(#"{"ghost":[1]}"#))
    }
}
