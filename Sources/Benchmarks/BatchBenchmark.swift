import EngineSupport
import Foundation
import Kernels
import TextGeneration

/// `Benchmarks batch <model.gguf> [--sequences 1,2,4,8,16] [--threads 2] [--prompt 32] [--tokens 64]`:
/// aggregate decode throughput of N sequences of one model decoding at once, each on its own
/// thread and session as server requests are, with continuous batching on and off, interleaved.
/// Every sequence prefills its own seeded prompt, then evaluates `tokens` tokens one at a time.
struct BatchBenchmark {
    var modelPath: String
    var sequenceCounts = [1, 2, 4, 8, 16]
    var threads = 2
    var promptTokens = 32
    var tokens = 64
    var rounds = 2
    var windowMilliseconds: Int?

    init(arguments: ArraySlice<String>) throws {
        var positional: [String] = []
        var rest = arguments
        func count(_ name: String) throws -> Int {
            guard let value = rest.popFirst().flatMap(Int.init), value > 0 else { throw BenchmarkArgumentError("\(name) needs a positive count") }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--sequences":
                sequenceCounts = (rest.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
                guard !sequenceCounts.isEmpty else { throw BenchmarkArgumentError("--sequences needs counts like 1,4,8") }
            case "--threads": threads = try count(argument)
            case "--prompt": promptTokens = try count(argument)
            case "--tokens": tokens = try count(argument)
            case "--rounds": rounds = try count(argument)
            case "--window": windowMilliseconds = try count(argument)
            default: positional.append(argument)
            }
        }
        guard positional.count == 1 else { throw BenchmarkArgumentError("batch needs <model.gguf>") }
        modelPath = positional[0]
    }

    func run() throws {
        let model = try LanguageModel(path: modelPath)
        if let windowMilliseconds { model.batcher.gatherWindow = .milliseconds(windowMilliseconds) }
        print("machine: \(Machine.summary), load \(Machine.loadAverage), kernels \(KernelTier.name)")
        print("model: \((modelPath as NSString).lastPathComponent) (\(model.quantization)), threads \(threads), prompt \(promptTokens), \(tokens) tokens each")
        let context = max(promptTokens + tokens, 8 + 64) + 1  // room for the single-pass figures too
        var sessions: [Session] = []
        for _ in 0..<(sequenceCounts.max() ?? 1) { sessions.append(Session(model: model, contextLength: context, threads: threads)) }
        // Warm-up: page the weights in.
        try sessions[0].evaluate(Array(repeating: 1, count: 8)[...])
        // The ceiling: one pass of k tokens of one sequence (what a step of k sequences costs,
        // short of their attention).
        var passes: [String] = []
        for k in [1, 2, 4, 8, 16, 24, 32, 64] {
            let clock = ContinuousClock()
            var best = Double.infinity
            for _ in 0..<5 {
                sessions[0].truncate(to: 8)
                let t = try clock.measure { try sessions[0].evaluate(Array(repeating: 1, count: k)[...]) }
                best = min(best, t.seconds)
            }
            passes.append(String(format: "%d: %.2f ms (%.0f tok/s)", k, best * 1000, Double(k) / best))
        }
        print("one pass of k tokens: \(passes.joined(separator: ", "))")
        for round in 1...rounds {
            for n in sequenceCounts {
                var figures: [String] = []
                for batching in [true, false] {
                    model.batcher.isEnabled = batching
                    let seconds = try decode(Array(sessions.prefix(n)), model: model, seed: UInt64(round * 100 + n))
                    figures.append(String(format: "%@ %.1f tok/s", batching ? "batched" : "alone", Double(n * tokens) / seconds))
                }
                let c = model.batcher.snapshot.counters
                print("round \(round), \(n) sequences: \(figures.joined(separator: ", ")) (mean batch so far \(String(format: "%.1f", Double(c.sequences) / Double(max(1, c.steps)))), steps by size \(c.batchSizes), \(c.steps) steps, busy \(String(format: "%.2f", c.busySeconds)) s)")
            }
        }
        model.batcher.isEnabled = true
    }

    /// Seconds for every session to decode `tokens` tokens after its prompt, each on a thread.
    private func decode(_ sessions: [Session], model: LanguageModel, seed: UInt64) throws -> Double {
        let vocab = UInt64(model.config.vocabularySize)
        let clock = ContinuousClock()
        let group = DispatchGroup()
        let failures = FailureBox()
        let start = clock.now
        for (i, session) in sessions.enumerated() {
            let box = BenchSession(session)
            group.enter()
            Thread {
                defer { group.leave() }
                var rng = SplitMix64(seed: seed &+ UInt64(i))
                let s = box.session
                model.batcher.enter()
                defer { model.batcher.leave() }
                do {
                    s.reset()
                    try s.evaluate((0..<promptTokens).map { _ in Int32(rng.next() % vocab) }[...])
                    for _ in 0..<tokens { try s.evaluate([Int32(rng.next() % vocab)][...]) }
                } catch {
                    failures.record("\(error)")
                }
            }.start()
        }
        group.wait()
        if let failure = failures.first { throw BenchmarkArgumentError("a sequence failed: \(failure)") }
        return (clock.now - start).seconds
    }
}

/// `@unchecked Sendable`: each session goes to exactly one benchmark thread.
private final class BenchSession: @unchecked Sendable {
    let session: Session
    init(_ session: Session) { self.session = session }
}

private final class FailureBox: @unchecked Sendable {
    private let lock = NSLock()
    private var failure: String?
    func record(_ text: String) { lock.withLock { if failure == nil { failure = text } } }
    var first: String? { lock.withLock { failure } }
}
