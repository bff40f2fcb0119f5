import Foundation
import Platform

/// Drives a running server with `clients` concurrent keep-alive clients, each sending short
/// chat completions back to back for `seconds`, and reports errors and latency percentiles.
/// Bounded in time and count: a client starts no request after the deadline.
package struct LoadTest: Sendable {
    package var port: UInt16
    package var clients = 16
    package var seconds = 10.0
    package var model = "smollm2-135m-instruct-q4_1"
    /// Tokens per reply: short, so the figures measure the server and queueing, not long decodes.
    package var maxTokens = 8

    package init(port: UInt16, clients: Int = 16, seconds: Double = 10, model: String = "smollm2-135m-instruct-q4_1") {
        self.port = port
        self.clients = clients
        self.seconds = seconds
        self.model = model
    }

    package struct Report: Sendable {
        package var requests: Int
        package var errors: Int
        /// Status → count of the failures, and the first failure's text.
        package var failures: [Int: Int]
        package var firstFailure: String?
        /// Seconds, sorted.
        package var latencies: [Double]
        package var seconds: Double
        package var clients: Int

        package func percentile(_ p: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            return latencies[min(latencies.count - 1, Int((p / 100 * Double(latencies.count)).rounded(.up)) - 1)]
        }

        package var summary: String {
            let ms = { (s: Double) in String(format: "%.0f ms", s * 1000) }
            var text = "load: \(clients) clients, \(String(format: "%.1f", seconds)) s, \(requests) requests (\(String(format: "%.1f", Double(requests) / max(seconds, 1e-9))) req/s), \(errors) errors; latency p50 \(ms(percentile(50))), p99 \(ms(percentile(99))), max \(ms(latencies.last ?? 0))"
            if let firstFailure { text += "\n  first failure: \(firstFailure)" }
            return text
        }
    }

    package func run() -> Report {
        struct Shared {
            var latencies: [Double] = []
            var failures: [Int: Int] = [:]
            var firstFailure: String?
        }
        let shared = Locked(Shared())
        let start = ContinuousClock.now
        let deadline = start + .seconds(seconds)
        let body = LoadPrompts.chat(model: model, maxTokens: maxTokens)
        let group = DispatchGroup()
        for i in 0..<clients {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                var client = try? LoopbackClient(port: port)
                while ContinuousClock.now < deadline {
                    let t0 = ContinuousClock.now
                    var status = 0
                    var failure: String?
                    do {
                        if client == nil { client = try LoopbackClient(port: port) }
                        let response = try client!.post("/v1/chat/completions", json: body(i))
                        status = response.status
                        if status != 200 || !response.text.contains("\"chat.completion\"") { failure = "HTTP \(status): \(response.text.prefix(300))" }
                        if response.headers["connection"] == "close" { client = nil }
                    } catch {
                        failure = "\(error)"
                        client = nil
                    }
                    let elapsed = (ContinuousClock.now - t0)
                    let s = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                    shared.withLock { sh in
                        if let failure {
                            sh.failures[status, default: 0] += 1
                            if sh.firstFailure == nil { sh.firstFailure = failure }
                        } else {
                            sh.latencies.append(s)
                        }
                    }
                }
            }
            thread.start()
        }
        group.wait()
        let elapsed = ContinuousClock.now - start
        let total = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return shared.withLock { sh in
            let errors = sh.failures.values.reduce(0, +)
            return Report(requests: sh.latencies.count + errors, errors: errors, failures: sh.failures, firstFailure: sh.firstFailure,
                          latencies: sh.latencies.sorted(), seconds: total, clients: clients)
        }
    }
}

/// Request bodies for the load test: short, varied prompts so the prompt cache does not make
/// every request trivial.
enum LoadPrompts {
    static func chat(model: String, maxTokens: Int) -> @Sendable (Int) -> String {
        let topics = ["rain", "the sea", "a cat", "mountains", "bread", "a clock", "snow", "the moon", "trains", "bees",
                      "a library", "coffee", "wind", "a garden", "stars", "rivers"]
        return { i in
            "{\"model\":\"\(model)\",\"max_tokens\":\(maxTokens),\"temperature\":0,\"messages\":[{\"role\":\"user\",\"content\":\"Say one sentence about \(topics[i % topics.count]).\"}]}"
        }
    }
}
