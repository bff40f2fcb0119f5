import CLISupport
import Audio
import Foundation
import ModelStore
import OnDevice
import Retrieval
import Runtime

/// `ondevice bench-residency`: uses installed models in turn under a budget smaller than their
/// sum and prints peak RSS against the budget, evictions and load versus reload times. Every
/// kind with an engine takes part: LLMs generate, Whisper transcribes `--audio` (default: 5 s of
/// synthetic audio), Silero scores it, embedders embed a few sentences.
enum BenchResidencyCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["models", "budget", "rounds", "context", "threads", "tokens", "audio"], flags: ["json"])
        let store = try ModelStore()
        var ids = a.string("models")?.split(separator: ",").map(String.init) ?? []
        if ids.isEmpty {
            // Every installed model whose kind has an engine in this build.
            let kinds = Set(EngineRegistry.complete.kinds)
            ids = await store.list().filter { $0.state == .installed && kinds.contains($0.entry.kind) }.map(\.entry.id)
        }
        guard ids.count >= 2 else { throw CLIError.io("need at least two installed models (found \(ids)); pull some with 'ondevice models pull'") }
        var bench = ResidencyBenchmark(modelIds: ids, options: LoadOptions(contextLength: try a.int("context") ?? 1024,
                                                                          threads: try a.int("threads") ?? ProcessInfo.processInfo.activeProcessorCount))
        bench.rounds = try a.int("rounds") ?? 2
        bench.generationTokens = try a.int("tokens") ?? 16
        bench.budget = try a.int("budget")
        bench.engines = .complete
        if let file = a.string("audio") { bench.audio = try AudioFile.read(path: file).resampled(to: 16_000).samples }
        bench.work[.embedding] = { model in
            guard let embedder = (model as? ResidentEmbedder)?.embedder else { return "" }
            let result = try embedder.embed(sentences)
            return "\(result.embeddings.count) texts, \(result.tokenCount) tokens"
        }
        let r = try await bench.run(store: store)
        if a.has("json") {
            try printJSON([
                "budget_bytes": r.budget, "sum_of_estimates_bytes": r.sumOfEstimates, "baseline_rss_bytes": r.baselineRss,
                "peak_rss_bytes": r.peakRss, "peak_above_baseline_bytes": r.peakRss - r.baselineRss, "evictions": r.evictions.count,
                "estimates": r.estimates.mapValues { $0.totalBytes }, "measured": r.measured,
                "steps": r.steps.map { s in
                    ["round": s.round, "model": s.modelId, "load_seconds": s.loadSeconds as Any, "reload": s.reload,
                     "op_seconds": s.opSeconds, "note": s.note, "resident_after": s.residentAfter, "rss_after_bytes": s.rssAfter] as [String: Any]
                },
            ])
            return
        }
        print("budget \(ByteCount(r.budget)) for \(ids.count) models whose estimates sum to \(ByteCount(r.sumOfEstimates))")
        for id in ids {
            let e = r.estimates[id]
            print("  \(id): estimate \(ByteCount(e?.totalBytes ?? 0)) (weights \(ByteCount(e?.weightBytes ?? 0)), KV \(ByteCount(e?.cacheBytes ?? 0)), scratch \(ByteCount(e?.scratchBytes ?? 0))), measured \(ByteCount(r.measured[id] ?? 0))")
        }
        for s in r.steps {
            let load = s.loadSeconds.map { String(format: "%@ %.3f s", s.reload ? "reload" : "load", $0) } ?? "hit"
            print(String(format: "  round %d %-28@ %-16@ op %.2f s (%@); resident after: %@; RSS %@", s.round, s.modelId, load,
                         s.opSeconds, s.note, s.residentAfter.joined(separator: ", "), ByteCount(s.rssAfter).description))
        }
        print("evictions \(r.evictions.count)")
        for id in ids {
            let loads = r.steps.filter { $0.modelId == id && $0.loadSeconds != nil }
            let first = loads.first { !$0.reload }?.loadSeconds
            let reloads = loads.filter(\.reload).compactMap(\.loadSeconds)
            print(String(format: "  %@: first load %@, %d reloads%@", id, first.map { String(format: "%.3f s", $0) } ?? "-", reloads.count,
                         reloads.isEmpty ? "" : String(format: " (mean %.3f s)", reloads.reduce(0, +) / Double(reloads.count))))
        }
        let above = r.peakRss - r.baselineRss
        print("peak RSS (VmHWM\(r.peakReset ? ", reset at start" : "")) \(ByteCount(r.peakRss)); baseline \(ByteCount(r.baselineRss)); "
              + "peak above baseline \(ByteCount(above)) = \(String(format: "%.1f", 100 * Double(above) / Double(max(1, r.budget))))% of the budget")
    }

    static let sentences = [
        "The weather today is sunny and warm.", "A man is playing a guitar.", "The meeting moved to Thursday.",
        "Residents asked for more trees in the park.", "Please call me back after lunch.", "The fox jumps over the dog.",
        "Books can be returned through the slot.", "The projector in room four is broken.",
    ]
}
