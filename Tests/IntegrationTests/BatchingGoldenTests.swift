import Foundation
import Platform
import StructuredOutput
import TestSupport
import Testing
import TextGeneration

/// Continuous batching on real models: the golden prompts (../shared/golden/llm) decoded
/// together, each by its own generator on its own thread and session, sharing every step's
/// forward pass, give each prompt the tokens it gets alone, up to a near-tie where llama.cpp's
/// own top-2 margin is under 1.
@Suite(.serialized) struct BatchingGoldenTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let file: String
        let golden: String
        var testDescription: String { golden }
    }

    static let cases = [
        Case(file: TestModels.smolLM2, golden: "smollm2"),
        Case(file: TestModels.qwen25, golden: "qwen2"),
        Case(file: TestModels.gemma3, golden: "gemma3"),
    ]

    struct Run: Sendable {
        var generated: [Int32]
        var reason: FinishReason
    }

    /// Runs every prompt on its own thread at once (the `staggered` ones start after the others
    /// are decoding, so their prompts are prefilled beside decoding rows). `stopAfter[i]` cancels
    /// prompt i's generation after that many tokens (a client hanging up mid-batch).
    static func together(_ model: LanguageModel, prompts: [[Int32]], maxTokens: Int, staggered: Set<Int> = [],
                         stopAfter: [Int: Int] = [:]) -> [Run?] {
        let results = Locked([Run?](repeating: nil, count: prompts.count))
        let group = DispatchGroup()
        let started = DispatchSemaphore(value: 0)
        for (i, prompt) in prompts.enumerated() {
            group.enter()
            Thread {
                defer { group.leave() }
                if staggered.contains(i) { started.wait() }
                var signalled = staggered.contains(i)
                defer { if !signalled { started.signal() } }
                let session = Session(model: model, contextLength: 512, threads: 2)
                var options = GenerationOptions()
                options.sampling = .greedy
                options.maxTokens = maxTokens
                var count = 0
                let result = try? Generator(session: session, options: options).run(
                    prompt: prompt, isCancelled: { stopAfter[i].map { count >= $0 } ?? false },
                    onToken: { _, _ in
                        count += 1
                        // Once a first sequence decodes, the staggered ones start.
                        if count == 2 && !signalled {
                            signalled = true
                            started.signal()
                        }
                    })
                results.withLock { $0[i] = result.map { Run(generated: $0.generatedIds, reason: $0.metrics.finishReason) } }
            }.start()
        }
        group.wait()
        return results.withLock { $0 }
    }

    @Test(arguments: cases)
    func `prompts decoded together equal each decoded alone`(_ c: Case) throws {
        let path = try #require(TestModels.path(c.file), "model \(c.file) not installed: run scripts/setup.sh")
        let model = try LanguageModel(path: path)
        let records = try GoldenFiles.lines("llm/greedy-\(c.golden).jsonl")
        #expect(records.count >= 4, "too few golden prompts to batch")
        let prompts = records.map { $0.ints("prompt_ids") }
        let margins = records.map { $0.floats("step_top2_margin") }
        let expected = records.map { $0.ints("generated_ids") }
        let maxTokens = 24

        // Alone: one sequence at a time (every step of one sequence).
        var alone: [[Int32]] = []
        for prompt in prompts {
            let session = Session(model: model, contextLength: 512, threads: 2)
            var options = GenerationOptions()
            options.sampling = .greedy
            options.maxTokens = maxTokens
            alone.append(try Generator(session: session, options: options).run(prompt: prompt).generatedIds)
        }
        let before = model.batcher.snapshot.counters
        // A small chunk, so prompts prefill over several steps beside the decoding rows.
        model.batcher.prefillChunk = 5
        // Half start at once, half once those decode; one hangs up after 5 tokens.
        let staggered = Set(prompts.indices.filter { $0 % 2 == 1 })
        let hangUp = prompts.count - 1
        let runs = Self.together(model, prompts: prompts, maxTokens: maxTokens, staggered: staggered, stopAfter: [hangUp: 5])
        let after = model.batcher.snapshot.counters

        var equal = 0
        for (i, run) in runs.enumerated() {
            let run = try #require(run, "prompt \(i) failed")
            if i == hangUp {
                let reason = run.reason, count = run.generated.count
                #expect(reason == .cancelled && count == 5, "the hung-up sequence: \(reason), \(count) tokens")
                #expect(run.generated == Array(alone[i].prefix(5)) || margins[i].prefix(5).contains { $0 < 1 })
                continue
            }
            let same = zip(run.generated, alone[i]).prefix { $0 == $1 }.count
            if same == alone[i].count && run.generated.count == alone[i].count {
                equal += 1
            } else {
                // A difference may only start where the sequences were still llama.cpp's and
                // its top-2 margin there is under 1 (the batched products round differently).
                let agreed = zip(alone[i], expected[i]).prefix { $0 == $1 }.count
                #expect(same >= agreed || margins[i][same] < 1.0,
                        "prompt \(i): batched diverged from alone at step \(same), where llama.cpp's margin is \(margins[i][same])")
            }
        }
        let steps = after.steps - before.steps, sequences = after.sequences - before.sequences
        print("[\(c.golden)] batched: \(equal) of \(runs.count - 1) prompts equal alone; \(steps) steps, mean batch \(String(format: "%.2f", Double(sequences) / Double(max(1, steps)))), largest \(after.largestBatch)")
        #expect(after.largestBatch >= prompts.count / 2, "steps never served several sequences (largest \(after.largestBatch))")
        #expect(Double(sequences) / Double(max(1, steps)) > 2, "steps served \(sequences) sequences in \(steps) steps")
        GoldenRecords.checked(records.count, in: Self.self)
    }
}
