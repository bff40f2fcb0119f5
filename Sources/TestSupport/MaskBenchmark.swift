import EngineSupport
import StructuredOutput
import Tokenizers

/// Measures the cost of grammar masking on a real vocabulary: building the token trie once, a
/// full-vocabulary mask in representative states, and the single-token check the sampler tries
/// first. Figures, not assertions: for the Benchmarks executable and the report.
package struct MaskBenchmark {
    package var repetitions = 20

    package init() {}

    package struct Case: Sendable, Equatable {
        package var name: String
        /// Tokens the mask allowed.
        package var allowed: Int
        package var millisecondsPerMask: Double
    }

    package struct Report: Sendable, Equatable {
        package var vocabularySize: Int
        package var trieNodes: Int
        package var trieBuildSeconds: Double
        package var cases: [Case]
        /// One `allows` call on a typical token.
        package var microsecondsPerCheck: Double
    }

    /// States reached by feeding a prefix; `budget` is the remaining token budget.
    static let scenarios: [(name: String, schema: String, prefix: Grammar.Prefix, text: String, budget: Int)] = [
        ("document start", person, .none, "", 1000),
        ("object key", person, .none, #"{"name":"Ada","#, 1000),
        ("string value", person, .none, #"{"name":"Ada L"#, 1000),
        ("string value, tight budget", person, .none, #"{"name":"Ada L"#, 30),
        ("number value", person, .none, #"{"name":"Ada","age":3"#, 1000),
        ("free text before a tool call", person, .freeTextUntil("<tool_call>"), "The answer is", 1000),
        ("format string (uri)", links, .none, #"{"site":"https://ex"#, 1000),
        ("extra member name", links, .none, #"{"site":"https://a.b","tags":{"x":1,"ta"#, 1000),
        ("bounded number", links, .none, #"{"site":"https://a.b","tags":{},"score":0."#, 1000),
    ]
    static let links = #"{"type":"object","properties":{"site":{"type":"string","format":"uri"},"tags":{"type":"object","additionalProperties":{"type":"integer","minimum":0}},"score":{"type":"number","minimum":0,"maximum":1}},"required":["site","tags","score"]}"#
    static let person = #"{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},"tags":{"type":"array","items":{"type":"string"}}},"required":["name","age"]}"#

    package func run(tokenizer: Tokenizer) throws(EngineError) -> Report {
        let clock = ContinuousClock()
        let t0 = clock.now
        let trie = TokenTrie(tokenizer: tokenizer)
        let buildSeconds = (clock.now - t0).seconds
        _ = TokenTrie.shared(for: tokenizer)
        let vocab = tokenizer.vocabularySize
        let logits = UnsafeMutablePointer<Float>.allocate(capacity: vocab)
        defer { logits.deallocate() }
        var cases: [Case] = []
        var checkSeconds = 0.0
        var checks = 0
        for s in Self.scenarios {
            let grammar = try Grammar(schema: JSONSchema(json: s.schema), prefix: s.prefix)
            let constraint = GrammarConstraint(grammar: grammar, tokenizer: tokenizer)
            for id in tokenizer.encode(s.text, addBOS: false, parseSpecial: false) { try constraint.accept(id) }
            var allowed = 0
            logits.update(repeating: 0, count: vocab)
            let start = clock.now
            for _ in 0..<repetitions {
                try constraint.mask(logits, count: vocab, remaining: s.budget)
            }
            let seconds = (clock.now - start).seconds
            for i in 0..<vocab where logits[i] == 0 { allowed += 1 }
            cases.append(Case(name: s.name, allowed: allowed, millisecondsPerMask: seconds * 1000 / Double(repetitions)))
            let probe = tokenizer.encode(" Lovelace", addBOS: false, parseSpecial: false).first ?? 0
            let c0 = clock.now
            for _ in 0..<1000 { _ = constraint.allows(probe, remaining: s.budget) }
            checkSeconds += (clock.now - c0).seconds
            checks += 1000
        }
        return Report(vocabularySize: vocab, trieNodes: trie.nodeCount, trieBuildSeconds: buildSeconds, cases: cases,
                      microsecondsPerCheck: checkSeconds * 1e6 / Double(checks))
    }
}
