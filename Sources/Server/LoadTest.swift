import Foundation
import Platform
import StructuredOutput

/// Drives a server on this machine (ours, or any OpenAI-compatible one such as llama-server)
/// with `clients` concurrent keep-alive clients, each streaming greedy chat completions back to
/// back for `seconds`, and reports throughput (aggregate and per client), time to first token
/// and the gaps between streamed tokens. Bounded in time and count: a client starts no request
/// after the deadline, and the report counts only the tokens of requests that finished.
package struct LoadTest: Sendable {
    package var port: UInt16
    package var clients = 16
    package var seconds = 10.0
    package var model = "smollm2-135m-instruct-q4_1"
    /// Tokens per reply. The prompts ask for more than this, so replies mostly run to it.
    package var maxTokens = 64

    package init(port: UInt16, clients: Int = 16, seconds: Double = 10, model: String = "smollm2-135m-instruct-q4_1", maxTokens: Int = 64) {
        self.port = port
        self.clients = clients
        self.seconds = seconds
        self.model = model
        self.maxTokens = maxTokens
    }

    package struct Report: Sendable {
        package var requests: Int
        package var errors: Int
        /// Status → count of the failures, and the first failure's text.
        package var failures: [Int: Int]
        package var firstFailure: String?
        /// Seconds, sorted: whole requests, time to first token, gaps between tokens.
        package var latencies: [Double]
        package var firstToken: [Double]
        package var tokenGaps: [Double]
        /// Completion tokens of the finished requests, in all and per client.
        package var tokens: Int
        package var tokensPerClient: [Int]
        package var seconds: Double
        package var clients: Int

        static func percentile(_ sorted: [Double], _ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return sorted[max(0, min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))]
        }

        package func percentile(_ p: Double) -> Double { Self.percentile(latencies, p) }

        /// Completion tokens per second over the run, all clients together.
        package var aggregateTokensPerSecond: Double { Double(tokens) / max(seconds, 1e-9) }

        /// Each client's completion tokens per second, sorted.
        package var clientTokensPerSecond: [Double] { tokensPerClient.map { Double($0) / max(seconds, 1e-9) }.sorted() }

        package var summary: String {
            let ms = { (s: Double) in String(format: "%.0f ms", s * 1000) }
            let perClient = clientTokensPerSecond
            var text = "load: \(clients) clients, \(String(format: "%.1f", seconds)) s, \(requests) requests, \(errors) errors; "
            text += String(format: "%.1f tokens/s in all, per client %.1f–%.1f (median %.1f); ", aggregateTokensPerSecond,
                           perClient.first ?? 0, perClient.last ?? 0, Self.percentile(perClient, 50))
            text += "first token p50 \(ms(Self.percentile(firstToken, 50))), p99 \(ms(Self.percentile(firstToken, 99))); "
            text += "between tokens p50 \(ms(Self.percentile(tokenGaps, 50))), p99 \(ms(Self.percentile(tokenGaps, 99))); "
            text += "request p50 \(ms(percentile(50))), p99 \(ms(percentile(99)))"
            if let firstFailure { text += "\n  first failure: \(firstFailure)" }
            return text
        }
    }

    /// Sends one request and waits for its reply, untimed, so the model is loaded and has run
    /// once before anything is measured (llama-server loads and warms its model up before it
    /// answers `/health`; ours loads a model on its first request). Returns why it failed, if it did.
    package func warmUp() -> String? {
        let body = LoadPrompts.chat(model: model, maxTokens: maxTokens)(0)
        do {
            let (status, result) = try Self.stream(try LoopbackClient(port: port), body: body, start: .now)
            return status == 200 ? nil : "HTTP \(status): \(result.errorText.prefix(300))"
        } catch {
            return "\(error)"
        }
    }

    package func run() -> Report {
        struct Shared {
            var latencies: [Double] = []
            var firstToken: [Double] = []
            var tokenGaps: [Double] = []
            var tokens: [Int]
            var failures: [Int: Int] = [:]
            var firstFailure: String?
        }
        let shared = Locked(Shared(tokens: Array(repeating: 0, count: clients)))
        let start = ContinuousClock.now
        let deadline = start + .seconds(seconds)
        let body = LoadPrompts.chat(model: model, maxTokens: maxTokens)
        let group = DispatchGroup()
        for i in 0..<clients {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                var client = try? LoopbackClient(port: port)
                var n = 0
                while ContinuousClock.now < deadline {
                    let t0 = ContinuousClock.now
                    var status = 0
                    var failure: String?
                    var result = Streamed()
                    do {
                        let reused = client != nil
                        if client == nil { client = try LoopbackClient(port: port) }
                        do {
                            (status, result) = try Self.stream(client!, body: body(i + clients * n), start: t0)
                        } catch ServerError.connectionClosed where reused {
                            // The server closed the kept-alive connection after the last reply
                            // (llama-server does, after a stream): a client connects again.
                            client = try LoopbackClient(port: port)
                            (status, result) = try Self.stream(client!, body: body(i + clients * n), start: t0)
                        }
                        n += 1
                        if status != 200 {
                            failure = "HTTP \(status): \(result.errorText.prefix(300))"
                        } else if result.completionTokens == 0 {
                            failure = "no tokens in the stream"
                        }
                        if result.closes { client = nil }
                    } catch {
                        failure = "\(error)"
                        client = nil
                    }
                    let elapsed = (ContinuousClock.now - t0).inSeconds
                    shared.withLock { sh in
                        if let failure {
                            sh.failures[status, default: 0] += 1
                            if sh.firstFailure == nil { sh.firstFailure = failure }
                        } else {
                            sh.latencies.append(elapsed)
                            if let first = result.firstToken { sh.firstToken.append(first) }
                            sh.tokenGaps.append(contentsOf: result.gaps)
                            sh.tokens[i] += result.completionTokens
                        }
                    }
                }
            }
            thread.start()
        }
        group.wait()
        let total = (ContinuousClock.now - start).inSeconds
        return shared.withLock { sh in
            let errors = sh.failures.values.reduce(0, +)
            return Report(requests: sh.latencies.count + errors, errors: errors, failures: sh.failures, firstFailure: sh.firstFailure,
                          latencies: sh.latencies.sorted(), firstToken: sh.firstToken.sorted(), tokenGaps: sh.tokenGaps.sorted(),
                          tokens: sh.tokens.reduce(0, +), tokensPerClient: sh.tokens, seconds: total, clients: clients)
        }
    }

    /// What one streamed request gave.
    struct Streamed {
        var firstToken: Double?
        var gaps: [Double] = []
        var completionTokens = 0
        var errorText = ""
        var closes = false
    }

    /// Sends one streaming chat request and reads its events as they arrive: the first content
    /// delta's time, the gaps between content deltas, and the usage's completion tokens (or,
    /// from a server that sends no usage, the count of content deltas).
    static func stream(_ client: LoopbackClient, body: String, start: ContinuousClock.Instant) throws(ServerError) -> (Int, Streamed) {
        var result = Streamed()
        guard client.send(Array("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)) else {
            throw .connectionClosed
        }
        let head = try client.readHead()
        result.closes = head.headers["connection"] == "close"
        guard head.status == 200, head.headers["transfer-encoding"] == "chunked" else {
            var rest = head
            if head.headers["content-length"] != nil || head.headers["transfer-encoding"] == "chunked" {
                var body: [UInt8] = []
                if head.headers["transfer-encoding"] == "chunked" { try client.readChunks { body += $0 } } else {
                    rest = try client.readRemainder(of: head)
                    body = rest.body
                }
                result.errorText = String(decoding: body, as: UTF8.self)
            }
            result.closes = true
            return (head.status == 200 ? 0 : head.status, result)
        }
        var pending = ""
        var last: ContinuousClock.Instant?
        var deltas = 0
        var usage: Int?
        try client.readChunks { chunk in
            let now = ContinuousClock.now
            pending += String(decoding: chunk, as: UTF8.self)
            while let end = pending.range(of: "\n\n") {
                let event = String(pending[..<end.lowerBound])
                pending.removeSubrange(..<end.upperBound)
                for line in event.split(separator: "\n") where line.hasPrefix("data: ") {
                    let payload = line.dropFirst(6)
                    guard payload != "[DONE]", let json = try? JSONValue(parsing: String(payload)) else { continue }
                    if let tokens = json["usage"]?["completion_tokens"]?.number { usage = Int(tokens) }
                    guard case .array(let choices)? = json["choices"], let content = choices.first?["delta"]?["content"]?.string,
                          !content.isEmpty else { continue }
                    deltas += 1
                    if let last { result.gaps.append((now - last).inSeconds) } else { result.firstToken = (now - start).inSeconds }
                    last = now
                }
            }
        }
        result.completionTokens = usage ?? deltas
        return (200, result)
    }
}

/// Request bodies for the load test: varied prompts, so the prompt cache does not make every
/// request trivial, each asking for more than the token limit.
enum LoadPrompts {
    static func chat(model: String, maxTokens: Int) -> @Sendable (Int) -> String {
        let topics = ["rain", "the sea", "a cat", "mountains", "bread", "a clock", "snow", "the moon", "trains", "bees",
                      "a library", "coffee", "wind", "a garden", "stars", "rivers"]
        return { i in
            "{\"model\":\"\(model)\",\"max_tokens\":\(maxTokens),\"temperature\":0,\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Write a long story about \(topics[i % topics.count]).\"}]}"
        }
    }
}
