import CLISupport
import Foundation
import Models
import TestSupport
import Retrieval

/// `ondevice bench-embed`: sentences/s of an embedding model (compare with
/// `scripts/bench-embed-reference.py`, sentence-transformers on the same sentences), then
/// exact and HNSW search latency and HNSW recall@10 at each `--vectors` size.
enum EmbedBenchCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["model", "threads", "sentences", "batch", "vectors", "file", "write-sentences", "repetitions",
                                              "precision"],
                              flags: ["json", "no-model", "no-search"])
        let threads = try a.int("threads") ?? ProcessInfo.processInfo.activeProcessorCount
        var json: [String: Any] = ["cpu": CPUInfo.summary, "threads": threads]
        let sentences = try a.string("file").map { try String(contentsOfFile: $0, encoding: .utf8).split(separator: "\n").map(String.init) }
            ?? benchmarkSentences(try a.int("sentences") ?? 1000)
        if let out = a.string("write-sentences") {
            try (sentences.joined(separator: "\n") + "\n").write(toFile: out, atomically: true, encoding: .utf8)
        }
        if !a.has("no-model") {
            let precision = try a.string("precision").map { value in
                guard let p = EncoderPrecision(rawValue: value) else {
                    throw CLIError.invalidValue(option: "--precision", value: value, expected: "int16 or float32")
                }
                return p
            } ?? .int16
            let embedder = try await EmbeddingModels.loadDirectly(a.string("model") ?? EmbeddingModels.defaultId, threads: threads,
                                                                  precision: precision)
            let batch = try a.int("batch") ?? 32
            _ = try embedder.embed(Array(sentences.prefix(batch)))  // warm up: scratch, page-in
            // Wall time, and the process's CPU time (all threads): on a machine shared with other
            // work the second is what compares implementations fairly.
            var best = Double.infinity, bestCPU = Double.infinity, tokens = 0
            for _ in 0..<(try a.int("repetitions") ?? 3) {
                let start = Date(), cpu = processCPUSeconds()
                tokens = 0
                for i in stride(from: 0, to: sentences.count, by: batch) {
                    tokens += try embedder.embed(Array(sentences[i..<min(i + batch, sentences.count)])).tokenCount
                }
                best = min(best, Date().timeIntervalSince(start))
                bestCPU = min(bestCPU, processCPUSeconds() - cpu)
            }
            let rate = Double(sentences.count) / best
            print(String(format: "embed %@ (%@): %d sentences (%d tokens) in %.2f s: %.1f sentences/s, %.0f tokens/s; %.1f sentences per CPU-second (batch %d, %d threads)",
                         embedder.identity.modelId, precision.rawValue, sentences.count, tokens, best, rate, Double(tokens) / best,
                         Double(sentences.count) / bestCPU, batch, threads))
            json["model"] = embedder.identity.modelId
            json["precision"] = precision.rawValue
            json["sentences"] = sentences.count
            json["sentences_per_second"] = rate
            json["sentences_per_cpu_second"] = Double(sentences.count) / bestCPU
            json["tokens_per_second"] = Double(tokens) / best
        }
        if !a.has("no-search") {
            var rows: [[String: Any]] = []
            for n in try sizes(a.string("vectors") ?? "10000,100000") {
                var bench = SearchBenchmark(vectors: n)
                bench.threads = threads
                let r = bench.run()
                print(String(format: "search %d × %d: exact %.2f ms (p95 %.2f), HNSW %.3f ms (p95 %.3f), build %.1f s, recall@10 %.3f",
                             r.vectors, r.dimension, r.exactMedian * 1000, r.exactP95 * 1000, r.hnswMedian * 1000,
                             r.hnswP95 * 1000, r.hnswBuildSeconds, r.recallAtK))
                rows.append(["vectors": r.vectors, "dimension": r.dimension, "exact_ms": r.exactMedian * 1000,
                             "exact_p95_ms": r.exactP95 * 1000, "hnsw_ms": r.hnswMedian * 1000, "hnsw_p95_ms": r.hnswP95 * 1000,
                             "hnsw_build_s": r.hnswBuildSeconds, "recall_at_10": r.recallAtK])
            }
            json["search"] = rows
        }
        print("cpu: \(CPUInfo.summary)")
        if a.has("json") { try printJSON(json) }
    }


    static func sizes(_ s: String) throws -> [Int] {
        try s.split(separator: ",").map {
            guard let n = Int($0), n > 0 else { throw CLIError.invalidValue(option: "--vectors", value: s, expected: "sizes like 10000,100000") }
            return n
        }
    }

    /// Deterministic English-like sentences of 6–20 words, the same every run.
    static func benchmarkSentences(_ count: Int) -> [String] {
        let subjects = ["The committee", "A small dog", "My neighbour", "The new library", "Our team", "The river",
                        "A quantum computer", "The weather service", "Every student", "The old train"]
        let verbs = ["announced", "discovered", "carried", "explained", "ignored", "measured", "painted", "described"]
        let objects = ["a surprising result", "the plan for next year", "three heavy boxes", "the history of the city",
                       "an unusual pattern in the data", "the rules of the game", "a quiet path along the water"]
        let tails = ["", " before lunch", " after a long and difficult meeting with everyone involved",
                     " in the middle of the night", " while the rain kept falling on the roof"]
        return (0..<count).map { i in
            "\(subjects[i % subjects.count]) \(verbs[(i / 3) % verbs.count]) \(objects[(i / 7) % objects.count])\(tails[(i / 11) % tails.count]) (\(i))."
        }
    }
}
