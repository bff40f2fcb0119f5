import Foundation
import Testing
import TextGeneration
import Tokenizers

/// Token logprobs from the one decode loop, held against a log-softmax computed here, in Double,
/// from the logits of a replay of the same tokens.
@Suite struct LogprobTests {
    /// Each step's log-softmax, replaying `result` on a fresh session the way the generator runs
    /// (the prompt in one prefill, then one token at a time), so the logits are the same ones.
    static func replay(_ result: GenerationResult, model: LanguageModel) throws -> [[Double]] {
        let session = Session(model: model, threads: 1)
        try session.prefill(result.promptIds)
        var steps: [[Double]] = []
        for (step, id) in result.generatedIds.enumerated() {
            let logits = (0..<session.vocabularySize).map { Double(session.logits[$0]) }
            let peak = logits.max() ?? 0
            let logSum = peak + log(logits.reduce(0) { $0 + exp($1 - peak) })
            steps.append(logits.map { $0 - logSum })
            if step + 1 < result.generatedIds.count { try session.evaluate([id][...]) }
        }
        return steps
    }

    /// Every step's figures equal the replay's: the token's logprob, and the `k` best by value.
    static func expectMatchesReplay(_ result: GenerationResult, model: LanguageModel, k: Int) throws {
        let figures = try #require(result.logprobs)
        #expect(figures.count == result.generatedIds.count)
        let steps = try replay(result, model: model)
        for (step, f) in figures.enumerated() {
            let reference = steps[step]
            #expect(f.id == result.generatedIds[step])
            #expect(abs(Double(f.logprob) - reference[Int(f.id)]) < 1e-4, "step \(step)")
            #expect(f.bytes == Array(model.tokenizer.pieceBytes(f.id)))
            let best = reference.sorted(by: >).prefix(k)
            #expect(f.top.count == k)
            for (alternative, expected) in zip(f.top, best) {
                #expect(abs(Double(alternative.logprob) - expected) < 1e-4, "step \(step)")
                #expect(abs(reference[Int(alternative.id)] - expected) < 1e-4, "step \(step): the alternative's id carries its value")
            }
            #expect(f.top.map(\.logprob) == f.top.map(\.logprob).sorted(by: >))
            #expect(f.logprob <= 0 && f.top.allSatisfy { $0.logprob <= 0 })
        }
    }

    static func options(k: Int?, temperature: Float, penalty: Float = 1) -> GenerationOptions {
        var o = GenerationOptions()
        o.sampling.temperature = temperature
        o.sampling.topK = 0
        o.sampling.topP = 1
        o.sampling.minP = 0
        o.sampling.seed = 7
        o.sampling.repetitionPenalty = penalty
        o.maxTokens = 12
        o.logprobs = k
        return o
    }

    @Test func `logprobs are the log-softmax of the model's logits at each step`() throws {
        let model = try loadTiny()
        // Sampled hot, with a repetition penalty: the figures are the model's, before either.
        let sampled = try Generator(session: Session(model: model, threads: 1), options: Self.options(k: 5, temperature: 1.5, penalty: 1.3))
            .run(prompt: [1, 40, 41])
        try Self.expectMatchesReplay(sampled, model: model, k: 5)
        let greedy = try Generator(session: Session(model: model, threads: 1), options: Self.options(k: 3, temperature: 0))
            .run(prompt: [1, 40, 41])
        try Self.expectMatchesReplay(greedy, model: model, k: 3)
        for f in try #require(greedy.logprobs) {
            #expect(f.logprob == f.top[0].logprob, "greedy picks the most likely token")
        }
    }

    @Test func `logprobs are off unless asked for and do not change the tokens`() throws {
        let model = try loadTiny()
        let plain = try Generator(session: Session(model: model, threads: 1), options: Self.options(k: nil, temperature: 1.5))
            .run(prompt: [1, 40, 41])
        let asked = try Generator(session: Session(model: model, threads: 1), options: Self.options(k: 20, temperature: 1.5))
            .run(prompt: [1, 40, 41])
        #expect(plain.logprobs == nil)
        #expect(plain.generatedIds == asked.generatedIds)
        #expect(asked.logprobs?.allSatisfy { $0.top.count == 20 } == true)
    }

    @Test func `the core reports the logprobs of the visible text, streamed with it`() throws {
        let model = try loadTiny()
        var options = Self.options(k: 2, temperature: 1.5)
        options.maxTokens = 20
        let plan = try TextCore.plan(TextJob(.raw("hello"), options: options), model: model, contextLength: 256)
        var streamed: [TokenLogprob] = []
        var text = ""
        let outcome = try TextCore.run(plan, on: Session(model: model, threads: 1), onText: { text += $0 }, onLogprobs: { streamed += $0 })
        let visible = try #require(outcome.logprobs)
        #expect(!visible.isEmpty && !outcome.content.isEmpty)
        #expect(visible == streamed)
        #expect(text == outcome.content)
        #expect(visible.map(\.id) == Array(outcome.result.generatedIds.prefix(visible.count)))
        #expect(model.tokenizer.decode(visible.map(\.id)) == outcome.content)
        #expect(!visible.contains { model.tokenizer.isEndOfGeneration($0.id) })

        // A stop string taken from that reply: the tokens after the stop are not reported.
        let scalars = Array(outcome.content.unicodeScalars)
        try #require(scalars.count >= 8)
        options.stop = [String(String.UnicodeScalarView(scalars[5..<8]))]
        let stopped = try TextCore.run(TextCore.plan(TextJob(.raw("hello"), options: options), model: model, contextLength: 256),
                                       on: Session(model: model, threads: 1))
        let kept = try #require(stopped.logprobs)
        #expect(stopped.finishReason == .stopSequence)
        #expect(kept.map(\.id) == Array(stopped.result.generatedIds.prefix(kept.count)))
        #expect(model.tokenizer.decode(kept.map(\.id)).hasPrefix(stopped.content))
        #expect(kept.count < visible.count)
    }
}
