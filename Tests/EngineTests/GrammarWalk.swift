import Foundation
import StructuredOutput
import TestSupport
import Testing

/// Random documents of a grammar, byte by byte: each byte drawn among those the grammar allows
/// next, and once `wander` bytes are written only bytes that bring the end nearer. Along the
/// way it checks that the cost to finish is exact: from a state that needs c > 0 more bytes,
/// no byte leads to one needing fewer than c − 1, and some byte leads to one needing c − 1.
struct GrammarWalk {
    let grammar: Grammar

    func document(_ rng: inout SeededGenerator, wander: Int = 80, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        var state = grammar.initialState
        var bytes: [UInt8] = []
        while true {
            let cost = grammar.minimumBytesToFinish(state)
            if cost == 0 && (bytes.count >= wander || Int.random(in: 0..<4, using: &rng) == 0) { break }
            var next: [(UInt8, GrammarState, Int)] = []
            for b in 0...255 {
                if let s = grammar.state(state, after: UInt8(b)) { next.append((UInt8(b), s, grammar.minimumBytesToFinish(s))) }
            }
            if cost > 0 {
                let best = next.map(\.2).min() ?? Int.max
                #expect(best == cost - 1, "after \(String(decoding: bytes, as: UTF8.self)): cost \(cost), best next \(best)",
                        sourceLocation: sourceLocation)
                if best != cost - 1 { return nil }
            }
            if bytes.count >= wander { next = next.filter { $0.2 < cost } }
            guard let pick = next.randomElement(using: &rng) else {
                if cost > 0 { Issue.record("a dead end after \(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation) }
                break
            }
            bytes.append(pick.0)
            state = pick.1
            if bytes.count > 4000 {
                Issue.record("a walk that does not end", sourceLocation: sourceLocation)
                return nil
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `count` random documents: each parses (Foundation) and validates against `schema`.
    static func expectValidDocuments(_ schema: JSONSchema, options: Grammar.Options = Grammar.Options(), count: Int = 30, seed: UInt64 = 1,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let walk = GrammarWalk(grammar: try Grammar(schema: schema, options: options))
        var rng = SeededGenerator(seed: seed)
        var documents: [String] = []
        for _ in 0..<count {
            guard let text = walk.document(&rng, sourceLocation: sourceLocation) else { continue }
            documents.append(text)
            #expect(walk.grammar.recognizes(text), "\(text)", sourceLocation: sourceLocation)
            #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])) != nil, "\(text)",
                    sourceLocation: sourceLocation)
            #expect(throws: Never.self, "\(text)", sourceLocation: sourceLocation) { try schema.validate(json: text) }
        }
        return documents
    }
}

func schemaGrammar(_ json: String, _ configure: (inout Grammar.Options) -> Void = { _ in }) throws -> Grammar {
    var o = Grammar.Options()
    configure(&o)
    return try Grammar(schema: JSONSchema(json: json), options: o)
}
