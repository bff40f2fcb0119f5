import Foundation
import OnDevice
import TestSupport
import Testing
import TextGeneration
import Tokenizers

/// Token logprobs on SmolLM2: the decode loop's figures against a log-softmax computed here, in
/// Double, from the logits of the same tokens replayed; and the same figures through the SDK.
@Suite(.serialized) struct LogprobModelTests {
    static func model() throws -> LanguageModel {
        let path = try #require(TestModels.path(TestModels.smolLM2), "\(TestModels.smolLM2) not installed: run scripts/setup.sh")
        return try LanguageModel(path: path)
    }

    @Test func `SmolLM2's logprobs are the log-softmax of its logits at every step`() throws {
        let model = try Self.model()
        let prompt = model.tokenizer.encode("The capital of France is", addBOS: nil, parseSpecial: false)
        for temperature: Float in [0, 1.2] {
            var options = GenerationOptions()
            options.sampling.temperature = temperature
            options.sampling.seed = 3
            options.maxTokens = 8
            options.logprobs = 4
            let result = try Generator(session: Session(model: model, threads: 2), options: options).run(prompt: prompt)
            let figures = try #require(result.logprobs)
            #expect(figures.count == result.generatedIds.count)
            let replay = Session(model: model, threads: 2)
            try replay.prefill(prompt)
            for (step, id) in result.generatedIds.enumerated() {
                let logits = (0..<replay.vocabularySize).map { Double(replay.logits[$0]) }
                let peak = logits.max() ?? 0
                let logSum = peak + log(logits.reduce(0) { $0 + exp($1 - peak) })
                let f = figures[step]
                #expect(abs(Double(f.logprob) - (logits[Int(id)] - logSum)) < 1e-4, "t=\(temperature) step \(step)")
                let best = logits.sorted(by: >).prefix(4).map { $0 - logSum }
                #expect(zip(f.top, best).allSatisfy { abs(Double($0.logprob) - $1) < 1e-4 }, "t=\(temperature) step \(step)")
                #expect(f.top.reduce(0) { $0 + exp(Double($1.logprob)) } <= 1 + 1e-6)
                if temperature == 0 { #expect(f.top[0].id == id, "greedy takes the most likely token") }
                if step + 1 < result.generatedIds.count { try replay.evaluate([id][...]) }
            }
        }
    }

    @Test func `the SDK reports the logprobs of its reply's tokens`() async throws {
        let ai = try OpsTests.instance()
        var options = OpsTests.greedy
        options.maxTokens = 12
        options.logprobs = 3
        let r = try await ai.chat([.user("What is the capital of France?")], options: options)
        let tokens = try #require(r.logprobs)
        #expect(!tokens.isEmpty)
        #expect(String(decoding: tokens.flatMap(\.bytes), as: UTF8.self) == r.text)
        for t in tokens {
            #expect(t.alternatives.count == 3 && t.alternatives[0].id == t.id && t.logprob <= 0)
        }
        let plain = try await ai.chat([.user("What is the capital of France?")], options: OpsTests.greedy)
        #expect(plain.logprobs == nil)
        options.logprobs = 21
        await #expect(throws: OnDeviceError.self) { _ = try await ai.chat([.user("hi")], options: options) }
        do {
            _ = try await ai.chat([.user("hi")], options: options)
        } catch let error as OnDeviceError {
            #expect(error.code == .invalidArgument && error.message.contains("logprobs"), "\(error)")
        }
    }
}
