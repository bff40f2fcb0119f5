import Foundation
import StructuredOutput
import TestSupport
import Testing
import TextGeneration

/// Constrained decoding on a random-weight model: whatever the model "wants", the output must
/// be valid JSON for the schema, for every seed. Multi-byte tokens that cross JSON structure
/// (`{"`, `":`, `",`, `"}`, `true`, …) are in the vocabulary so masking is exercised on tokens
/// that are only partly valid.
@Suite struct ConstrainedDecodingTests {
    static let jsonMerges = [
        "{ \"", "\" :", "\" ,", "\" }", "Ġ \"", "] }", "1 2", "t r", "tr u", "tru e", "n u", "nu l", "nul l", "\\ n",
        "Ċ Ġ", "h e", "l l", "Ġ t", ", Ġ", "a b", "ab c", "\" ]", "[ \"", "0 .", "- 1",
    ]

    static let schemas = [
        #"{"type":"object","properties":{"name":{"type":"string","maxLength":10},"age":{"type":"integer"},"ok":{"type":"boolean"}},"required":["name","age"]}"#,
        #"{"type":"array","items":{"type":"number"},"minItems":2,"maxItems":5}"#,
        #"{"type":"object","properties":{"tags":{"type":"array","items":{"enum":["red","green","blue"]},"minItems":1},"note":{"type":["string","null"],"minLength":3}},"required":["tags","note"]}"#,
        #"{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"array","items":{"type":"array","items":{"type":"integer"},"maxItems":2}}},"required":["b"]}},"required":["a"]}"#,
        #"{"enum":["yes","no",1,10,null]}"#,
        #"{"type":"string","minLength":5,"maxLength":40}"#,
        #"{"oneOf":[{"properties":{"op":{"const":"add"},"x":{"type":"number"},"y":{"type":"number"}},"required":["op","x","y"]},{"properties":{"op":{"const":"neg"},"x":{"type":"number"}},"required":["op","x"]}]}"#,
        #"{"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{2}-\\d{2,4}$"},"day":{"type":"string","format":"date"},"n":{"type":"integer","minimum":-5,"maximum":250},"p":{"type":"number","exclusiveMinimum":0,"maximum":1}},"required":["code","day","n","p"]}"#,
        #"{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":{"type":"string","maxLength":6},"maxProperties":4}"#,
        #"{"type":"array","prefixItems":[{"type":"string","format":"uuid"},{"enum":[{"a":[1]},[null],2.5]}],"items":{"type":"boolean"},"maxItems":4}"#,
        ##"{"$ref":"#/$defs/N","$defs":{"N":{"type":"object","properties":{"v":{"type":"integer","minimum":0,"maximum":9},"kids":{"type":"array","items":{"$ref":"#/$defs/N"},"maxItems":2}},"required":["v"]}}}"##,
        #"{"type":"object","properties":{"mail":{"type":"string","format":"email","maxLength":30},"site":{"type":"string","format":"uri"},"at":{"type":"string","format":"date-time"},"any":{}},"required":["mail","site","at"]}"#,
    ]

    static func model(context: Int = 1024) throws -> LanguageModel {
        try loadTiny {
            $0.merges = jsonMerges
            $0.contextLength = context
        }
    }

    static func sampling(seed: UInt64) -> GenerationOptions {
        var o = GenerationOptions()
        o.sampling.temperature = 1.5
        o.sampling.topK = 0
        o.sampling.topP = 1
        o.sampling.minP = 0
        o.sampling.seed = seed
        return o
    }

    /// Parses with Foundation (an independent parser) and validates with the schema.
    static func expectValid(_ json: String, _ schema: JSONSchema, _ context: String) {
        #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])) != nil, "\(context): \(json)")
        #expect(throws: Never.self, "\(context): \(json)") { try schema.validate(json: json) }
    }

    @Test(arguments: 0..<schemas.count)
    func `a random-weight model writes valid JSON for every seed`(_ index: Int) throws {
        let model = try Self.model()
        let schema = try JSONSchema(json: Self.schemas[index])
        let session = Session(model: model, threads: 1)
        for seed in 0..<25 {
            var o = Self.sampling(seed: UInt64(seed))
            // Tight budgets force the grammar to close the document early; loose ones let it wander.
            o.maxTokens = [60, 90, 400][seed % 3]
            let (json, result) = try generateStructured(session: session, prompt: [1, 40, 41], schema: schema, options: o)
            Self.expectValid(json, schema, "schema \(index) seed \(seed)")
            #expect(result.generatedIds.count <= o.maxTokens)
            #expect([.grammarComplete, .endOfGeneration, .length].contains(result.metrics.finishReason))
        }
    }

    @Test func `whitespace and repetition penalty keep output valid`() throws {
        let model = try Self.model()
        let session = Session(model: model, threads: 1)
        var g = Grammar.Options()
        g.maxWhitespace = 2
        for (i, text) in Self.schemas.enumerated() {
            let schema = try JSONSchema(json: text)
            for seed in 0..<6 {
                var o = Self.sampling(seed: UInt64(seed))
                o.maxTokens = 120
                o.sampling.repetitionPenalty = 1.3
                let (json, _) = try generateStructured(session: session, prompt: [1, 50], schema: schema, options: o, grammarOptions: g)
                Self.expectValid(json, schema, "schema \(i) seed \(seed)")
            }
        }
    }

    @Test func `greedy constrained decoding is deterministic`() throws {
        let model = try Self.model()
        let schema = try JSONSchema(json: Self.schemas[0])
        var o = GenerationOptions()
        o.sampling = .greedy
        o.maxTokens = 80
        let a = try generateStructured(session: Session(model: model), prompt: [1, 40], schema: schema, options: o)
        let b = try generateStructured(session: Session(model: model), prompt: [1, 40], schema: schema, options: o)
        #expect(a.json == b.json)
        Self.expectValid(a.json, schema, "greedy")
    }

    @Test func `the mask allows exactly the tokens the single-token check allows`() throws {
        let model = try Self.model()
        let vocab = model.config.vocabularySize
        var rng = SeededGenerator(seed: 3)
        let logits = UnsafeMutablePointer<Float>.allocate(capacity: vocab)
        defer { logits.deallocate() }
        for text in Self.schemas {
            let grammar = try Grammar(schema: JSONSchema(json: text))
            let shortest = grammar.minimumBytesToFinish(grammar.initialState)
            for budget in [shortest, shortest + 5, 1000] {
                let c = GrammarConstraint(grammar: grammar, tokenizer: model.tokenizer)
                var remaining = budget
                while !c.isComplete && remaining > 0 {
                    logits.update(repeating: 0, count: vocab)
                    try c.mask(logits, count: vocab, remaining: remaining)
                    let masked = (0..<vocab).filter { logits[$0] == 0 }.map(Int32.init)
                    let checked = (0..<vocab).filter { c.allows(Int32($0), remaining: remaining) }.map(Int32.init)
                    #expect(masked == checked, "\(text) budget \(budget) remaining \(remaining)")
                    guard let pick = masked.randomElement(using: &rng) else { break }
                    if model.tokenizer.isEndOfGeneration(pick) { break }
                    try c.accept(pick)
                    remaining -= 1
                }
                #expect(c.minimumBytesToFinish == 0, "\(text) budget \(budget) left unfinished")
            }
        }
    }

    @Test func `an extra member's name is never written twice in one object`() throws {
        let model = try Self.model()
        let tokenizer = model.tokenizer
        var byteToken = [Int32?](repeating: nil, count: 256)
        for id in 0..<Int32(tokenizer.vocabularySize) {
            let piece = tokenizer.pieceBytes(id, renderSpecial: false)
            if piece.count == 1, let b = piece.first, byteToken[Int(b)] == nil { byteToken[Int(b)] = id }
        }
        func feed(_ c: GrammarConstraint, _ text: String) throws {
            for b in text.utf8 { try c.accept(try #require(byteToken[Int(b)], "no token for \(b)")) }
        }
        let quote = try #require(byteToken[0x22])
        let vocab = model.config.vocabularySize
        let logits = UnsafeMutablePointer<Float>.allocate(capacity: vocab)
        defer { logits.deallocate() }
        // After "a" and "b", a name that starts "a" or "b" may not close there (but may go on).
        var options = Grammar.Options()
        options.maxKeyLength = 2
        let schema = try JSONSchema(json: #"{"type":"object","additionalProperties":{"type":"null"},"minProperties":3,"maxProperties":3}"#)
        for name in ["a", "b", "c"] {
            let c = GrammarConstraint(grammar: try Grammar(schema: schema, options: options), tokenizer: tokenizer)
            try feed(c, #"{"a":null,"b":null,""# + name)
            #expect(c.allows(quote, remaining: 100) == (name == "c"), "\(name)")
            logits.update(repeating: 0, count: vocab)
            try c.mask(logits, count: vocab, remaining: 100)
            #expect((0..<vocab).filter { logits[$0] == 0 } == (0..<vocab).filter { c.allows(Int32($0), remaining: 100) }, "\(name)")
        }
        // Each object has its own names.
        let nested = try JSONSchema(json: #"{"type":"array","items":{"type":"object","additionalProperties":{"type":"null"}}}"#)
        let n = GrammarConstraint(grammar: try Grammar(schema: nested), tokenizer: tokenizer)
        try feed(n, #"[{"ab":null,"ab"#)
        #expect(!n.allows(quote, remaining: 100))
        try feed(n, #"c":null},{"ab"#)
        #expect(n.allows(quote, remaining: 100))
    }

    @Test func `a constraint that need not finish within the budget still follows the grammar`() throws {
        let model = try Self.model()
        let schema = try JSONSchema(json: #"{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}"#)
        let c = GrammarConstraint(grammar: try Grammar(schema: schema), tokenizer: model.tokenizer)
        let vocab = model.config.vocabularySize
        let logits = UnsafeMutablePointer<Float>.allocate(capacity: vocab)
        defer { logits.deallocate() }
        // Two tokens cannot hold {"city":""}: the default refuses every token.
        logits.update(repeating: 0, count: vocab)
        #expect(throws: EngineError.noAllowedToken(afterTokens: 0)) { try c.mask(logits, count: vocab, remaining: 2) }
        c.finishesWithinBudget = false
        logits.update(repeating: 0, count: vocab)
        try c.mask(logits, count: vocab, remaining: 2)
        let allowed = (0..<vocab).filter { logits[$0] == 0 }
        #expect(!allowed.isEmpty)
        // The same tokens as with room to finish: only the budget check is off.
        let roomy = (0..<vocab).filter { c.allows(Int32($0), remaining: 100) }
        #expect(allowed == roomy)
        #expect(allowed.allSatisfy { c.allows(Int32($0), remaining: 2) })
    }

    @Test func `a budget too small for the shortest document is a typed error`() throws {
        let model = try Self.model()
        let schema = try JSONSchema(json: #"{"type":"array","items":{"type":"string","minLength":10},"minItems":3}"#)
        var o = GenerationOptions()
        o.maxTokens = 20
        #expect(throws: EngineError.tokenBudgetTooSmall(needed: 40, available: 20)) {
            try generateStructured(session: Session(model: model), prompt: [1], schema: schema, options: o)
        }
        // Costs saturate instead of overflowing on absurd minimum sizes.
        var nested = #"{"type":"string","minLength":65000}"#
        for _ in 0..<6 { nested = #"{"type":"array","minItems":65000,"items":"# + nested + "}" }
        #expect {
            try generateStructured(session: Session(model: model), prompt: [1], schema: JSONSchema(json: nested), options: o)
        } throws: { error in
            if case .tokenBudgetTooSmall(_, 20)? = error as? EngineError { return true }
            return false
        }
    }
}
