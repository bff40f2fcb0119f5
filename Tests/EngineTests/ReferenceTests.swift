import StructuredOutput
import TestSupport
import Testing

/// `$ref` (with `$defs`/`definitions`, recursive ones too) and `allOf`.
@Suite struct ReferenceTests {
    static let tree = #"""
    {"$ref":"#/$defs/Node","$defs":{"Node":{"type":"object","properties":{
      "name":{"type":"string","maxLength":8},
      "children":{"type":"array","items":{"$ref":"#/$defs/Node"},"maxItems":3}},
      "required":["name","children"]}}}
    """#

    @Test func `references inline their targets and keep the annotations beside them`() throws {
        let schema = try JSONSchema(json: #"""
            {"type":"object","properties":{"home":{"$ref":"#/definitions/Address","description":"where"},
             "work":{"$ref":"#/definitions/Address"}},"required":["home"],
             "definitions":{"Address":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}
            """#)
        guard case .object(let o) = schema.shape else { Issue.record("\(schema.shape)"); return }
        #expect(o.properties[0].shape == o.properties[1].shape)
        #expect(schema.definitions.isEmpty)
        let g = try Grammar(schema: schema)
        #expect(g.recognizes(#"{"home":{"city":"Oslo"},"work":{"city":"Rome"}}"#))
        #expect(!g.recognizes(#"{"home":{}}"#))
    }

    @Test func `pointers are unescaped and percent-decoded`() throws {
        let schema = try JSONSchema(json: #"""
            {"$ref":"#/$defs/a~1b/properties/x%20y","$defs":{"a/b":{"properties":{"x y":{"type":"integer","minimum":3}}}}}
            """#)
        #expect(schema.shape == .range(NumericRange(integer: true, lower: .init(3), upper: nil)))
        let items = try JSONSchema(json: ##"{"type":"array","prefixItems":[{"type":"null"},{"$ref":"#/prefixItems/0"}],"items":false}"##)
        #expect(try Grammar(schema: items).recognizes("[null,null]"))
    }

    @Test func `a recursive tree schema generates trees as deep as the option allows and validates any depth`() throws {
        let schema = try JSONSchema(json: Self.tree)
        #expect(schema.definitions.keys.sorted() == ["#/$defs/Node"])
        var o = Grammar.Options()
        o.maxRecursionDepth = 2
        let g = try Grammar(schema: schema, options: o)
        // The outermost node and two levels of recursion below it.
        let leaf = #"{"name":"c","children":[]}"#
        let depth3 = #"{"name":"a","children":[{"name":"b","children":[\#(leaf),\#(leaf)]}]}"#
        #expect(g.recognizes(leaf) && g.recognizes(depth3))
        let depth4 = #"{"name":"a","children":[{"name":"b","children":[{"name":"c","children":[\#(leaf)]}]}]}"#
        #expect(!g.recognizes(depth4))
        try schema.validate(json: depth4)
        #expect(throws: EngineError.self) { try schema.validate(json: #"{"name":"a","children":[{"name":"b"}]}"#) }
        _ = try GrammarWalk.expectValidDocuments(schema, options: o, count: 30)
    }

    @Test func `recursion through the root, optional members and anyOf ends where it must`() throws {
        // A linked list: {"v": 1, "next": {...}} or null, through "#".
        let list = try JSONSchema(json: ##"{"anyOf":[{"type":"null"},{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#"}},"required":["v","next"]}]}"##)
        let g = try Grammar(schema: list)
        #expect(g.recognizes("null") && g.recognizes(#"{"v":1,"next":{"v":2,"next":null}}"#))
        _ = try GrammarWalk.expectValidDocuments(list, count: 30)
        // Mutual recursion: A holds an optional B, B a list of A.
        let mutual = try JSONSchema(json: #"""
            {"$ref":"#/$defs/A","$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}}},
             "B":{"type":"object","properties":{"as":{"type":"array","items":{"$ref":"#/$defs/A"}}},"required":["as"]}}}
            """#)
        _ = try GrammarWalk.expectValidDocuments(mutual, count: 30)
        // With no way out, no document exists: a typed error, not a hang.
        #expect(throws: EngineError.unsupportedSchema(path: "#", keyword: "a recursive schema with no document within 4 levels")) {
            try Grammar(schema: JSONSchema(json: ##"{"type":"object","properties":{"a":{"$ref":"#"}},"required":["a"]}"##))
        }
    }

    @Test func `a binary tree too large to expand fully is expanded less deep`() throws {
        let schema = try JSONSchema(json: #"""
            {"$defs":{"E":{"anyOf":[{"type":"integer"},{"type":"object","properties":{"op":{"enum":["+","*"]},
             "l":{"$ref":"#/$defs/E"},"r":{"$ref":"#/$defs/E"},"m":{"$ref":"#/$defs/E"}},"required":["op","l","r","m"]}]}},
             "$ref":"#/$defs/E"}
            """#)
        var o = Grammar.Options()
        o.maxRecursionDepth = 12
        _ = try GrammarWalk.expectValidDocuments(schema, options: o, count: 10)
    }

    @Test func `references that point nowhere or outside the document are typed errors`() {
        #expect(throws: EngineError.invalidSchema(path: "#/$ref", reason: "#/$defs/missing points nowhere in the document")) {
            try JSONSchema(json: ##"{"$ref":"#/$defs/missing"}"##)
        }
        #expect(throws: EngineError.unsupportedSchema(path: "#/properties/a", keyword: "$ref to other.json#/x (only JSON Pointers into this document)")) {
            try JSONSchema(json: #"{"properties":{"a":{"$ref":"other.json#/x"}}}"#)
        }
        #expect(throws: EngineError.unsupportedSchema(path: "#/$defs/A", keyword: "multipleOf")) {
            try JSONSchema(json: ##"{"$ref":"#/$defs/A","$defs":{"A":{"type":"integer","multipleOf":2}}}"##)
        }
    }

    @Test func `allOf merges object parts, bounds and types`() throws {
        let schema = try JSONSchema(json: #"""
            {"allOf":[{"$ref":"#/$defs/Base"},{"type":"object","properties":{"age":{"type":"integer","maximum":150},"name":{"maxLength":5}},"required":["age"]}],
             "$defs":{"Base":{"type":"object","properties":{"name":{"type":"string","minLength":1},"age":{"type":"number","minimum":0}},"required":["name"]}}}
            """#)
        guard case .object(let o) = schema.shape else { Issue.record("\(schema.shape)"); return }
        #expect(o.properties.map(\.name) == ["name", "age"])
        #expect(o.required == ["name", "age"])
        #expect(o.properties[0].shape == .string(minLength: 1, maxLength: 5))
        #expect(o.properties[1].shape == .range(NumericRange(integer: true, lower: .init(0), upper: .init(150))))
        _ = try GrammarWalk.expectValidDocuments(schema, count: 30)
    }

    @Test func `allOf applies one part's additionalProperties to the other parts' members`() throws {
        let closed = try JSONSchema(json: #"{"allOf":[{"properties":{"a":{"type":"integer"}},"additionalProperties":false},{"properties":{"b":{"type":"integer"}}}]}"#)
        guard case .object(let o) = closed.shape else { Issue.record("\(closed.shape)"); return }
        #expect(o.properties.map(\.name) == ["a"])
        let typed = try JSONSchema(json: #"{"allOf":[{"properties":{"a":{"type":"integer"}},"additionalProperties":{"type":"integer","minimum":0}},{"properties":{"b":{}}}]}"#)
        guard case .object(let t) = typed.shape else { Issue.record("\(typed.shape)"); return }
        #expect(t.properties.last?.shape == .range(NumericRange(integer: true, lower: .init(0), upper: nil)))
        #expect(throws: EngineError.invalidSchema(path: "#", reason: "required property b is not allowed by another allOf part")) {
            try JSONSchema(json: #"{"allOf":[{"properties":{"a":{}},"additionalProperties":false},{"required":["b"]}]}"#)
        }
    }

    @Test(arguments: [
        (#"{"allOf":[{"type":"string","pattern":"a"},{"pattern":"b"}]}"#, EngineError.unsupportedSchema(path: "#", keyword: "allOf parts with different pattern")),
        (#"{"allOf":[{"anyOf":[{"type":"string"}]},{"anyOf":[{"type":"null"}]}]}"#, .unsupportedSchema(path: "#", keyword: "allOf parts with different anyOf")),
        (#"{"allOf":[{"type":"string"},{"type":"integer"}]}"#, .invalidSchema(path: "#", reason: "allOf parts with no type in common")),
        (#"{"allOf":[{"const":1},{"const":2}]}"#, .invalidSchema(path: "#/const", reason: "allOf parts with different constants")),
        (##"{"$defs":{"A":{"allOf":[{"$ref":"#/$defs/A"}]}},"$ref":"#/$defs/A"}"##, .unsupportedSchema(path: "#/$defs/A/allOf/0", keyword: "allOf through a recursive $ref")),
    ])
    func `allOf parts that cannot be merged are typed errors`(_ json: String, _ error: EngineError) {
        #expect(throws: error) { try JSONSchema(json: json) }
    }

    @Test func `sibling keywords of a reference and of anyOf apply too`() throws {
        let ref = try JSONSchema(json: ##"{"$ref":"#/$defs/S","maxLength":3,"$defs":{"S":{"type":"string","minLength":2}}}"##)
        #expect(ref.shape == .string(minLength: 2, maxLength: 3))
        let any = try JSONSchema(json: #"{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"null"}}],"maxLength":4,"maxItems":1}"#)
        #expect(any.shape == .anyOf([.string(minLength: 0, maxLength: 4), .array(items: .null, minItems: 0, maxItems: 1)]))
        // Two objects told apart by nothing in their first byte: refused.
        #expect(throws: EngineError.unsupportedSchema(path: "#", keyword: "anyOf alternatives that can begin with the same character")) {
            try JSONSchema(json: #"{"type":"object","anyOf":[{"properties":{"a":{"type":"null"}},"required":["a"]},{"properties":{"b":{"type":"null"}},"required":["b"]}]}"#)
        }
    }
}
