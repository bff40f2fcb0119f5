import EngineSupport
import Foundation
import ModelStore
import Runtime
import Speech
import TextGeneration

/// Uses several real models in turn under a budget smaller than their sum, the way an app that
/// calls transcribe, then summarize, then embed would, and measures what residency costs: peak
/// RSS (VmHWM) against the budget, evictions, and first-load versus reload times.
///
/// Each model kind plugs in through `EngineRegistry` (the loader) and `ResidencyBenchmark.Work`
/// (what one op does with the leased model). LLMs generate a few tokens, Whisper transcribes
/// `audio` greedily, Silero VAD scores it; other kinds get their work from the caller (the CLI
/// embeds a few sentences), and a kind without work is only loaded and leased.
package struct ResidencyBenchmark {
    /// What one op does with its leased model; returns a short note for the report.
    package typealias Work = @Sendable (any ResidentModel) throws -> String

    package var modelIds: [String]
    package var rounds = 2
    /// Resident-bytes budget; nil picks the largest estimate plus half the smallest, so every
    /// model fits alone but not all together.
    package var budget: Int?
    package var options: LoadOptions
    package var generationTokens = 16
    /// 16 kHz mono audio the speech kinds process.
    package var audio: [Float] = ResidencyBenchmark.syntheticAudio(seconds: 5)
    package var engines = EngineRegistry()
    /// Work per kind; LLMs default to generating `generationTokens` tokens.
    package var work: [ModelKind: Work] = [:]

    package init(modelIds: [String], options: LoadOptions) {
        self.modelIds = modelIds
        self.options = options
    }

    /// One op of the sequence.
    package struct Step: Sendable {
        package var round: Int
        package var modelId: String
        /// Load seconds on a miss (first load or reload), nil on a hit.
        package var loadSeconds: Double?
        package var reload: Bool
        package var opSeconds: Double
        package var note: String
        /// Models resident after the op, least recently used first.
        package var residentAfter: [String]
        package var rssAfter: Int
    }

    package struct Report: Sendable {
        package var budget: Int
        /// Estimate per model (weights + KV cache + scratch).
        package var estimates: [String: MemoryEstimate]
        /// Measured resident bytes per model after its first load.
        package var measured: [String: Int]
        package var steps: [Step]
        package var evictions: [RuntimeEvent]
        /// RSS before any model was loaded (runtime, libraries).
        package var baselineRss: Int
        /// VmHWM over the run (reset at its start where the kernel allows).
        package var peakRss: Int
        package var peakReset: Bool

        package var sumOfEstimates: Int { estimates.values.reduce(0) { $0 + $1.totalBytes } }
    }

    package func run(store: ModelStore) async throws -> Report {
        var loaders: [String: any ResidentModelLoading] = [:]
        var estimates: [String: MemoryEstimate] = [:]
        var kinds: [String: ModelKind] = [:]
        for id in modelIds {
            let status = try await store.get(id)
            guard let engine = engines.engine(for: status.entry.kind) else { throw RuntimeError.noEngine(modelId: id, kind: status.entry.kind) }
            guard let installed = try await store.resolve(id) else { throw RuntimeError.store(.notInstalled(id: id)) }
            let loader = try engine.loader(for: installed, options: options)
            loaders[id] = loader
            estimates[id] = try loader.estimate()
            kinds[id] = status.entry.kind
        }
        let sizes = estimates.values.map(\.totalBytes)
        let budget = self.budget ?? ((sizes.max() ?? 0) + (sizes.min() ?? 0) / 2)
        let events = EventBus<RuntimeEvent>(defaultBufferSize: 10_000)
        let subscription = events.subscribe()
        let residency = Residency(policy: MemoryBudgetPolicy(overrideBytes: budget), keepAlive: .forever,
                                  memoryProbe: FixedMemoryProbe(MemorySnapshot()), events: events)
        var work = self.work
        if work[.llm] == nil {
            work[.llm] = { [generationTokens, options] model in
                guard let llm = model as? ResidentLanguageModel else { return "" }
                return try Self.generate(llm, tokens: generationTokens, options: options)
            }
        }
        if work[.asr] == nil {
            work[.asr] = { [audio, options] model in
                guard let whisper = model as? ResidentWhisperModel else { return "" }
                return try Self.transcribe(whisper, audio: audio, threads: options.threads)
            }
        }
        if work[.vad] == nil {
            work[.vad] = { [audio] model in
                guard let vad = model as? ResidentVoiceActivityModel else { return "" }
                return "\(vad.detector().probabilities(audio).count) frames scored"
            }
        }
        ProcessMemory.returnFreedHeap()
        let baseline = ProcessMemory.current()?.residentBytes ?? 0
        let reset = ProcessMemory.resetPeak()
        var steps: [Step] = []
        var measured: [String: Int] = [:]
        var loadedBefore: Set<String> = []
        for round in 1...max(1, rounds) {
            for id in modelIds {
                guard let loader = loaders[id] else { continue }
                let loadsBefore = await residency.statistics.loads
                let clock = ContinuousClock()
                let started = clock.now
                let lease = try await residency.lease(any: loader)
                let loaded = clock.now
                let missed = await residency.statistics.loads > loadsBefore
                if measured[id] == nil { measured[id] = lease.residentModel.residentBytes }
                let note = try work[kinds[id] ?? .llm].map { try $0(lease.residentModel) } ?? "loaded"
                let done = clock.now
                await lease.release(keepAlive: nil)
                steps.append(Step(round: round, modelId: id, loadSeconds: missed ? (loaded - started).seconds : nil,
                                  reload: missed && loadedBefore.contains(id), opSeconds: (done - loaded).seconds, note: note,
                                  residentAfter: await residency.snapshot().modelIds,
                                  rssAfter: ProcessMemory.current()?.residentBytes ?? 0))
                loadedBefore.insert(id)
            }
        }
        let peak = ProcessMemory.current()?.peakResidentBytes ?? 0
        await residency.unloadAll()
        events.finish()
        var evictions: [RuntimeEvent] = []
        for await event in subscription { if case .evicted = event { evictions.append(event) } }
        return Report(budget: budget, estimates: estimates, measured: measured, steps: steps, evictions: evictions,
                      baselineRss: baseline, peakRss: peak, peakReset: reset)
    }

    /// Greedy transcription of `audio` on a pooled transcriber.
    static func transcribe(_ model: ResidentWhisperModel, audio: [Float], threads: Int) throws -> String {
        let slot = model.checkOut(threads: threads)
        defer { model.checkIn(slot) }
        let result = try slot.transcriber.transcribe(samples: audio, options: TranscriptionOptions(beamSize: 1))
        return "\(result.segments.count) segments, \(result.text.split(separator: " ").count) words"
    }

    /// Deterministic low-level noise with a few tone bursts, so a run needs no audio file.
    package static func syntheticAudio(seconds: Int) -> [Float] {
        var state: UInt32 = 12_345
        return (0..<seconds * 16_000).map { i in
            state = state &* 1_664_525 &+ 1_013_904_223
            let noise = (Float(state >> 8) / Float(1 << 24) - 0.5) * 0.01
            let burst = (i / 8_000) % 2 == 0 ? 0.2 * sinf(Float(i) * 2 * .pi * 220 / 16_000) : 0
            return noise + burst
        }
    }

    /// Greedy generation of `tokens` tokens after a short prompt, on a pooled session.
    static func generate(_ model: ResidentLanguageModel, tokens: Int, options: LoadOptions) throws -> String {
        let slot = model.checkOut(contextLength: options.contextLength, threads: options.threads)
        defer { model.checkIn(slot) }
        var generation = GenerationOptions()
        generation.sampling = .greedy
        generation.maxTokens = tokens
        let prompt = try TextCore.promptIds(TextJob(.user("Write one sentence about the sea.")), model: model.model)
        slot.session.reset()
        let result = try Generator(session: slot.session, options: generation).run(prompt: prompt)
        return String(format: "%d tokens, %.1f tok/s", result.metrics.completionTokens, result.metrics.generationTokensPerSecond)
    }
}
