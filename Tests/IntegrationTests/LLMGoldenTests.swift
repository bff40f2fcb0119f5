import Foundation
import TestSupport
import Testing
import TextGeneration

/// Our engine against llama.cpp's references (../shared/golden/llm, see its README): greedy
/// continuations, teacher-forced argmax, and top-10 logits.
@Suite(.serialized) struct LLMGoldenTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        let golden: String
        let logitTolerance: Float
        let medianTolerance: Float
        /// As llama.cpp names the file's type (llama-bench: "Q4_1", "Q4_K - Medium").
        let quantization: String
        var testDescription: String { file }
    }

    // Tolerances: llama.cpp's own single-token path differs from its batched path by up to
    // 0.82 / 1.83 (median 0.23-0.30 / 0.30-0.60) on these top-10 logits (SmolLM2 / Gemma 3,
    // golden README). Measured here: max 0.92 / 2.11, median 0.29 / 0.43. The bounds allow
    // about 1.2x llama.cpp's own spread; the medians hold the bulk of positions tightly.
    // Qwen 2.5: llama.cpp's single-token path differs from its batched reference by up to 0.57
    // (median 0.13-0.15) and its AVX-512 build by up to 0.45; measured here: max 0.50, median 0.135.
    static let cases = [
        Case(file: TestModels.smolLM2, golden: "smollm2", logitTolerance: 1.1, medianTolerance: 0.35, quantization: "Q4_1"),
        Case(file: TestModels.gemma3, golden: "gemma3", logitTolerance: 2.4, medianTolerance: 0.55, quantization: "Q4_K_M"),
        Case(file: TestModels.qwen25, golden: "qwen2", logitTolerance: 0.7, medianTolerance: 0.2, quantization: "Q4_K_M"),
    ]

    static func load(_ c: Case) throws -> LanguageModel {
        let path = try #require(TestModels.path(c.file), "model \(c.file) not installed: run scripts/setup.sh")
        return try LanguageModel(path: path)
    }

    @Test(arguments: cases)
    func `greedy decoding equals llama.cpp until a near-tie`(_ c: Case) throws {
        let model = try Self.load(c)
        let session = Session(model: model, contextLength: 2048, threads: 2)
        var options = GenerationOptions()
        options.sampling = .greedy
        options.maxTokens = 48
        var exact = 0
        let records = try GoldenFiles.lines("llm/greedy-\(c.golden).jsonl")
        for record in records {
            let prompt = record.ints("prompt_ids")
            let expected = record.ints("generated_ids")
            let margins = record.floats("step_top2_margin")
            session.reset()
            let result = try Generator(session: session, options: options).run(prompt: prompt)
            let same = zip(result.generatedIds, expected).prefix { $0 == $1 }.count
            if same == expected.count {
                #expect(result.generatedIds == expected, "\(record.string("id")): extra tokens")
                exact += 1
            } else {
                #expect(margins[same] < 1.0,
                        "\(record.string("id")): diverged at step \(same) where llama.cpp's top-2 margin is \(margins[same])")
            }
        }
        print("[\(c.golden)] greedy: \(exact) of \(records.count) prompts token-for-token equal to llama.cpp")
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test(arguments: cases)
    func `teacher-forced argmax equals llama.cpp wherever the margin is at least 1`(_ c: Case) throws {
        let model = try Self.load(c)
        let session = Session(model: model, contextLength: 2048, threads: 2)
        let vocab = model.config.vocabularySize
        var checked = 0
        let records = try GoldenFiles.lines("llm/greedy-\(c.golden).jsonl")
        for record in records {
            let prompt = record.ints("prompt_ids"), generated = record.ints("generated_ids")
            let margins = record.floats("step_top2_margin")
            let all = prompt + generated.dropLast()
            let logits = UnsafeMutablePointer<Float>.allocate(capacity: all.count * vocab)
            defer { logits.deallocate() }
            session.reset()
            try session.evaluate(all[...], allLogits: logits)
            for (step, token) in generated.enumerated() where margins[step] >= 1.0 {
                let row = logits + (prompt.count - 1 + step) * vocab
                #expect(Sampler.argmax(row, count: vocab) == token, "\(record.string("id")) step \(step)")
                checked += 1
            }
        }
        #expect(checked > 100)
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test(arguments: cases)
    func `top-10 logits are within the measured tolerance of llama.cpp`(_ c: Case) throws {
        let model = try Self.load(c)
        let session = Session(model: model, contextLength: 2048, threads: 2)
        let vocab = model.config.vocabularySize
        var worst: Float = 0
        var diffs: [Float] = []
        let records = try GoldenFiles.lines("llm/logits-\(c.golden).jsonl")
        for record in records {
            let ids = record.ints("input_ids")
            let logits = UnsafeMutablePointer<Float>.allocate(capacity: ids.count * vocab)
            defer { logits.deallocate() }
            session.reset()
            try session.evaluate(ids[...], allLogits: logits)
            for p in record["positions"] as? [[String: Any]] ?? [] {
                let pos = (p["pos"] as? Int) ?? 0
                let row = logits + pos * vocab
                let maxDiff = zip(p.ints("top_ids"), p.floats("top_logits")).map { abs(row[Int($0)] - $1) }.max() ?? .infinity
                diffs.append(maxDiff)
                worst = max(worst, maxDiff)
            }
        }
        try #require(diffs.count > 100, "\(c.golden): only \(diffs.count) golden positions")
        diffs.sort()
        print("[\(c.golden)] top-10 logit |diff| vs llama.cpp: max \(worst), median \(diffs[diffs.count / 2])")
        #expect(worst <= c.logitTolerance)
        #expect(diffs[diffs.count / 2] <= c.medianTolerance)
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test(arguments: cases)
    func `the reported quantization is the file's, not its largest tensor's`(c: Case) throws {
        #expect(try Self.load(c).quantization == c.quantization)
    }
}
