import Foundation
import StructuredOutput
import TestSupport
import Testing
import TextGeneration
import Tokenizers

/// Structured output on SmolLM2-135M-Instruct: every one of 20 schemas × 5 prompts must give a
/// document that Foundation parses and the schema validates. Greedy, at most 96 tokens each.
@Suite(.serialized) struct StructuredOutputModelTests {
    static func smolLM2() throws -> LanguageModel {
        let path = try #require(TestModels.path(TestModels.smolLM2), "model not installed: run scripts/setup.sh")
        return try LanguageModel(path: path)
    }

    /// The chat prompt: the schema instruction as the system message, the request as the user's.
    static func prompt(_ model: LanguageModel, schema: JSONSchema, request: String) throws -> [Int32] {
        let messages = [ChatMessage(role: .system, content: schema.promptInstruction), ChatMessage(role: .user, content: request)]
        let text = try model.chatTemplate().render(messages: messages, addGenerationPrompt: true)
        return model.tokenizer.encode(text, addBOS: nil, parseSpecial: true)
    }

    @Test(arguments: StructuredOutputCase.all)
    func `every prompt gives JSON valid against its schema`(_ c: StructuredOutputCase) throws {
        let model = try Self.smolLM2()
        let schema = try JSONSchema(json: c.schema)
        // One session per schema: the system prompt is cached across its five prompts.
        let session = Session(model: model, contextLength: 1024, threads: 2)
        var options = GenerationOptions()
        options.sampling = .greedy
        options.maxTokens = 96
        for request in c.prompts {
            let prompt = try Self.prompt(model, schema: schema, request: request)
            let (json, result) = try generateStructured(session: session, prompt: prompt, schema: schema, options: options)
            print("[structured] \(c.name) | \(request) | \(result.generatedIds.count) tokens, \(result.metrics.finishReason.rawValue) | \(json)")
            #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])) != nil,
                    "\(c.name) / \(request): Foundation cannot parse \(json)")
            #expect(throws: Never.self, "\(c.name) / \(request): \(json)") { try schema.validate(json: json) }
        }
    }

    @Test(arguments: [TestModels.smolLM2, TestModels.gemma3])
    func `the mask agrees with the single-token check on a full vocabulary`(_ file: String) throws {
        let path = try #require(TestModels.path(file), "model not installed: run scripts/setup.sh")
        let model = try LanguageModel(path: path)
        let tokenizer = model.tokenizer
        let schema = try JSONSchema(json: StructuredOutputCase.all[10].schema)
        let document = #"{"name":"Zoë Ünal 日本語 😀","address":{"street":"221B Baker Street","city":"Zürich","country":"UK"}}"#
        // One single-byte token per byte, so the walk also starts inside UTF-8 sequences.
        var byteToken = [Int32?](repeating: nil, count: 256)
        for id in 0..<Int32(tokenizer.vocabularySize) {
            let piece = tokenizer.pieceBytes(id, renderSpecial: false)
            if piece.count == 1, byteToken[Int(piece[piece.startIndex])] == nil { byteToken[Int(piece[piece.startIndex])] = id }
        }
        var ids: [Int32] = []
        for b in document.utf8 { ids.append(try #require(byteToken[Int(b)], "no token for byte \(b)")) }
        let vocab = model.config.vocabularySize
        let logits = UnsafeMutablePointer<Float>.allocate(capacity: vocab)
        defer { logits.deallocate() }
        let grammar = try Grammar(schema: schema)
        let shortest = grammar.minimumBytesToFinish(grammar.initialState)
        for budget in [shortest + 3, 1000] {
            let c = GrammarConstraint(grammar: grammar, tokenizer: tokenizer)
            var remaining = budget
            for id in ids {
                logits.update(repeating: 0, count: vocab)
                try c.mask(logits, count: vocab, remaining: remaining)
                var disagreements = 0
                for t in 0..<vocab where (logits[t] == 0) != c.allows(Int32(t), remaining: remaining) { disagreements += 1 }
                #expect(disagreements == 0, "budget \(budget) after \(c.acceptedTokens) tokens")
                guard c.allows(id, remaining: remaining) else { break }  // a tight budget may refuse the long document
                #expect(logits[Int(id)] == 0)
                try c.accept(id)
                remaining -= 1
            }
            if budget == 1000 { #expect(c.isComplete) }
        }
    }

    @Test(arguments: [TestModels.smolLM2, TestModels.gemma3])
    func `mask cost on a real vocabulary`(_ file: String) throws {
        let path = try #require(TestModels.path(file), "model not installed: run scripts/setup.sh")
        let model = try LanguageModel(path: path)
        let report = try MaskBenchmark().run(tokenizer: model.tokenizer)
        print("[mask] \(file): vocab \(report.vocabularySize), trie \(report.trieNodes) nodes built in "
              + String(format: "%.0f ms", report.trieBuildSeconds * 1000)
              + String(format: ", single-token check %.2f µs", report.microsecondsPerCheck))
        for c in report.cases {
            print("[mask]   \(c.name): \(c.allowed) allowed, " + String(format: "%.3f ms per mask", c.millisecondsPerMask))
            #expect(c.allowed > 0)
        }
    }
}
