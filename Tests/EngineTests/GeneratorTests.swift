import Foundation
import TestSupport
import Testing
import TextGeneration

@Suite struct GeneratorTests {
    @Test func `greedy generation is deterministic and stops at max tokens`() throws {
        let model = try loadTiny()
        var options = GenerationOptions()
        options.sampling = .greedy
        options.maxTokens = 12
        let a = try Generator(session: Session(model: model), options: options).run(prompt: [1, 40, 41])
        let b = try Generator(session: Session(model: model), options: options).run(prompt: [1, 40, 41])
        #expect(a.generatedIds == b.generatedIds)
        #expect(a.generatedIds.count <= 12)
        if a.metrics.finishReason == .length { #expect(a.generatedIds.count == 12) }
        #expect(a.metrics.promptTokens == 3)
    }

    @Test func `the same seed samples the same tokens and another seed differs somewhere`() throws {
        let model = try loadTiny()
        func run(_ seed: UInt64) throws -> [Int32] {
            var o = GenerationOptions()
            o.sampling.temperature = 1.5
            o.sampling.topK = 0
            o.sampling.topP = 1
            o.sampling.minP = 0
            o.sampling.seed = seed
            o.maxTokens = 24
            return try Generator(session: Session(model: model), options: o).run(prompt: [1, 40]).generatedIds
        }
        #expect(try run(1) == run(1))
        let others = try (2...6).map { try run(UInt64($0)) }
        #expect(others.contains { $0 != (try? run(1)) })
    }

    @Test func `each choice of a request has its own seed and one seed fixes them all`() {
        var p = SamplingParameters()
        p.seed = 42
        #expect(p.choice(0) == p)
        let seeds = (0..<8).map { p.choice($0).seed }
        #expect(Set(seeds).count == 8)
        #expect(seeds == (0..<8).map { p.choice($0).seed })
    }

    @Test func `generation stops at the context limit with a reason`() throws {
        let model = try loadTiny { $0.contextLength = 8 }
        var o = GenerationOptions()
        o.sampling = .greedy
        o.maxTokens = 100
        let r = try Generator(session: Session(model: model), options: o).run(prompt: [1, 40, 41])
        #expect([.contextFull, .endOfGeneration, .stopSequence].contains(r.metrics.finishReason))
        #expect(r.promptIds.count + r.generatedIds.count <= 9)
    }
}

@Suite struct StopStringTests {
    @Test func `a stop string split across tokens is never emitted`() {
        var m = StopMatcher(stops: ["END"])
        #expect(m.feed("abc E") == ("abc ", false))
        #expect(m.feed("N") == ("", false))
        #expect(m.feed("Dxyz") == ("", true))
    }

    @Test func `held-back text that does not complete a stop string is released`() {
        var m = StopMatcher(stops: ["END"])
        #expect(m.feed("E") == ("", false))
        #expect(m.feed("x") == ("Ex", false))
        #expect(m.feed("EN") == ("", false))
        #expect(m.flush() == "EN")
    }
}
