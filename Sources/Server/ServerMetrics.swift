import Foundation
import Platform

/// What the server has done since it started, for `GET /metrics` in Prometheus's text format
/// (version 0.0.4): text requests by model and outcome, tokens, time to first token and the
/// gaps between streamed pieces as histograms; the model host adds gauges (running and waiting
/// requests, batch steps, KV-cache bytes) when the page is rendered.
package final class ServerMetrics: Sendable {
    /// Histogram bucket bounds, seconds.
    static let firstTokenBounds = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
    static let tokenGapBounds = [0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28]

    struct Histogram: Sendable {
        let bounds: [Double]
        var counts: [Int]
        var sum = 0.0
        var count = 0
        init(bounds: [Double]) {
            self.bounds = bounds
            counts = Array(repeating: 0, count: bounds.count)
        }
        mutating func observe(_ value: Double) {
            for (i, bound) in bounds.enumerated() where value <= bound { counts[i] += 1 }
            sum += value
            count += 1
        }
    }

    struct ModelFigures: Sendable {
        /// Finished requests by outcome: stop, length, tool_calls, cancelled, rejected (429), error.
        var requests: [String: Int] = [:]
        var promptTokens = 0
        var completionTokens = 0
        var firstToken = Histogram(bounds: ServerMetrics.firstTokenBounds)
        var tokenGap = Histogram(bounds: ServerMetrics.tokenGapBounds)
    }

    private let figures = Locked([String: ModelFigures]())

    package init() {}

    /// A request to `model` ended with `outcome` (a finish reason, "cancelled", "rejected" or "error").
    func finished(model: String, outcome: String, promptTokens: Int = 0, completionTokens: Int = 0) {
        figures.withLock { f in
            f[model, default: ModelFigures()].requests[outcome, default: 0] += 1
            f[model, default: ModelFigures()].promptTokens += promptTokens
            f[model, default: ModelFigures()].completionTokens += completionTokens
        }
    }

    /// Seconds from a request's arrival (queue and load included) to its first visible text.
    func firstToken(model: String, seconds: Double) {
        figures.withLock { $0[model, default: ModelFigures()].firstToken.observe(seconds) }
    }

    /// Seconds between two consecutive pieces of a reply (one token, mostly).
    func tokenGap(model: String, seconds: Double) {
        figures.withLock { $0[model, default: ModelFigures()].tokenGap.observe(seconds) }
    }

    /// Gauges the host reads at render time, per model.
    struct ModelGauges: Sendable {
        var running = 0
        var waiting = 0
        /// The most requests that may run at once (the admission limit, KV budget included).
        var runningLimit = 0
        var kvCacheBytes = 0
        var kvBudgetBytes = 0
        var sessions = 0
        /// Continuous batching since the model loaded: steps, sequences served (summed over
        /// steps), rows evaluated, and steps by sequences served (`batchBounds`, last open).
        var steps = 0
        var sequences = 0
        var rows = 0
        var batchSizes: [Int] = []
        var batchBounds: [Int] = []
        /// The prompt cache: bytes held and allowed, copies held, prompts that started from a
        /// copy and the prompt tokens that spared.
        var promptCacheBytes = 0
        var promptCacheCapacity = 0
        var promptCacheEntries = 0
        var promptCacheHits = 0
        var promptCacheTokens = 0
        /// Seconds the batching passes took.
        var busySeconds = 0.0
    }

    /// The page: counters and histograms recorded here, and `gauges` by model.
    func render(gauges: [String: ModelGauges]) -> String {
        let snapshot = figures.withLock { $0 }
        var out = ""
        func family(_ name: String, _ type: String, _ help: String) {
            out += "# HELP ondevice_\(name) \(help)\n# TYPE ondevice_\(name) \(type)\n"
        }
        func line(_ name: String, _ labels: [(String, String)], _ value: Double) {
            let text = labels.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",")
            let number = value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
            out += "ondevice_\(name)\(text.isEmpty ? "" : "{\(text)}") \(number)\n"
        }
        let models = snapshot.keys.sorted()
        family("requests_total", "counter", "Text requests ended, by model and outcome (stop, length, tool_calls, cancelled, rejected, error).")
        for m in models { for (outcome, n) in snapshot[m]!.requests.sorted(by: { $0.key < $1.key }) { line("requests_total", [("model", m), ("outcome", outcome)], Double(n)) } }
        family("prompt_tokens_total", "counter", "Prompt tokens of finished text requests.")
        for m in models { line("prompt_tokens_total", [("model", m)], Double(snapshot[m]!.promptTokens)) }
        family("completion_tokens_total", "counter", "Generated tokens of finished text requests.")
        for m in models { line("completion_tokens_total", [("model", m)], Double(snapshot[m]!.completionTokens)) }
        func histogram(_ name: String, _ help: String, _ pick: (ModelFigures) -> Histogram) {
            family(name, "histogram", help)
            for m in models {
                let h = pick(snapshot[m]!)
                for (bound, n) in zip(h.bounds, h.counts) { line("\(name)_bucket", [("model", m), ("le", String(bound))], Double(n)) }
                line("\(name)_bucket", [("model", m), ("le", "+Inf")], Double(h.count))
                line("\(name)_sum", [("model", m)], h.sum)
                line("\(name)_count", [("model", m)], Double(h.count))
            }
        }
        histogram("time_to_first_token_seconds", "Seconds from a text request's arrival to its first visible text (queue and load included).") { $0.firstToken }
        histogram("inter_token_seconds", "Seconds between consecutive pieces of a reply.") { $0.tokenGap }

        let gaugeModels = gauges.keys.sorted()
        let gaugeFamilies: [(String, String, (ModelGauges) -> Int)] = [
            ("requests_running", "Text requests computing now.", \.running),
            ("requests_waiting", "Text requests waiting for a slot.", \.waiting),
            ("requests_running_limit", "Text requests that may compute at once (the KV budget included).", \.runningLimit),
            ("kv_cache_bytes", "Bytes of the KV caches (and scratch) of the model's sessions.", \.kvCacheBytes),
            ("kv_cache_budget_bytes", "Bytes the model's sessions may take: the residency budget less the model's own.", \.kvBudgetBytes),
            ("sessions", "Sessions (KV caches) allocated, in use or idle.", \.sessions),
            ("prompt_cache_bytes", "Bytes of session caches copied aside for later prompts.", \.promptCacheBytes),
            ("prompt_cache_capacity_bytes", "Bytes the prompt cache may take.", \.promptCacheCapacity),
            ("prompt_cache_entries", "Session caches copied aside for later prompts.", \.promptCacheEntries),
        ]
        for (name, help, pick) in gaugeFamilies {
            family(name, "gauge", help)
            for m in gaugeModels { line(name, [("model", m)], Double(pick(gauges[m]!))) }
        }
        let counterFamilies: [(String, String, (ModelGauges) -> Int)] = [
            ("batch_steps_total", "Forward passes of continuous batching since the model loaded.", \.steps),
            ("batch_sequences_total", "Sequences those passes served, summed (over steps: the mean batch size).", \.sequences),
            ("batch_rows_total", "Tokens those passes evaluated (prompt chunks and decoded tokens).", \.rows),
            ("prompt_cache_hits_total", "Prompts that started from a copy in the prompt cache.", \.promptCacheHits),
            ("prompt_cache_tokens_total", "Prompt tokens copied from the prompt cache instead of evaluated.", \.promptCacheTokens),
        ]
        for (name, help, pick) in counterFamilies {
            family(name, "counter", help)
            for m in gaugeModels { line(name, [("model", m)], Double(pick(gauges[m]!))) }
        }
        family("batch_busy_seconds_total", "counter", "Seconds the forward passes of continuous batching took (against wall time: how busy the model's compute was).")
        for m in gaugeModels { line("batch_busy_seconds_total", [("model", m)], gauges[m]!.busySeconds) }
        family("batch_size", "histogram", "Sequences per forward pass since the model loaded.")
        for m in gaugeModels {
            let g = gauges[m]!
            var cumulative = 0
            for (bound, n) in zip(g.batchBounds, g.batchSizes) {
                cumulative += n
                line("batch_size_bucket", [("model", m), ("le", String(bound))], Double(cumulative))
            }
            line("batch_size_bucket", [("model", m), ("le", "+Inf")], Double(g.steps))
            line("batch_size_sum", [("model", m)], Double(g.sequences))
            line("batch_size_count", [("model", m)], Double(g.steps))
        }
        return out
    }

    /// A label value with Prometheus's three escapes.
    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
