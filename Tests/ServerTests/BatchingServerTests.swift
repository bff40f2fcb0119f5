import Foundation
import Platform
import Server
import StructuredOutput
import TestSupport
import Testing

/// Continuous batching behind `ondevice serve` on a real model: concurrent requests share
/// forward passes and each gets the reply it gets alone (up to a near-tie), a client that hangs
/// up mid-batch does not disturb the others, the KV budget holds how many requests run at once,
/// and `/metrics` is Prometheus text that says all of this.
@Suite(.serialized) struct BatchingServerTests {
    static let model = "smollm2-135m-instruct-q4_1"
    static let topics = ["rain", "the sea", "a cat", "mountains", "bread", "a clock"]

    static func body(_ topic: String, maxTokens: Int = 24, stream: Bool = false) -> String {
        "{\"model\":\"\(model)\",\"max_tokens\":\(maxTokens),\"temperature\":0,\"logprobs\":true,\"top_logprobs\":2,"
            + "\"return_token_ids\":true,\"stream\":\(stream),\"messages\":[{\"role\":\"user\",\"content\":\"Tell me about \(topic).\"}]}"
    }

    /// A reply's token ids and, per visible token, the top-2 logprob margin.
    struct Reply: Sendable {
        var ids: [Int32]
        var margins: [Double]
    }

    static func reply(_ text: String) throws -> Reply {
        let json = try JSONValue(parsing: text)
        guard case .array(let choices)? = json["choices"], let choice = choices.first else { throw Failure("no choices in \(text.prefix(300))") }
        guard case .array(let ids)? = choice["token_ids"] else { throw Failure("no token_ids in \(text.prefix(300))") }
        var margins: [Double] = []
        if case .array(let content)? = choice["logprobs"]?["content"] {
            for entry in content {
                guard case .array(let top)? = entry["top_logprobs"], top.count == 2,
                      let a = top[0]["logprob"]?.number, let b = top[1]["logprob"]?.number else { continue }
                margins.append(a - b)
            }
        }
        return Reply(ids: ids.compactMap { $0.number.map { Int32($0) } }, margins: margins)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The server's `/metrics` page, checked by prometheus-client's own text parser (installed
    /// by scripts/setup-openai.sh); returns every sample as "name{labels}" → value.
    static func metrics(port: UInt16) throws -> [String: Double] {
        let page = try LoopbackClient(port: port).request("GET", "/metrics")
        guard page.status == 200, page.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true else {
            throw Failure("GET /metrics: \(page.status) \(page.headers["content-type"] ?? "")")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).txt")
        try Data(page.body).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import sys
            from prometheus_client.parser import text_string_to_metric_families
            for family in text_string_to_metric_families(open(sys.argv[1]).read()):
                for s in family.samples:
                    labels = ",".join(f'{k}="{v}"' for k, v in sorted(s.labels.items()))
                    print(f"{s.name}{{{labels}}} {s.value}")
            """
        let (status, output) = try OpenAIClientTests.python(["-c", script, file.path])
        guard status == 0 else { throw Failure("prometheus-client could not parse /metrics (run scripts/setup-openai.sh): \(output)") }
        var samples: [String: Double] = [:]
        for line in output.split(separator: "\n") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            samples[String(line[..<space])] = value
        }
        return samples
    }

    static func sum(_ samples: [String: Double], _ prefix: String) -> Double {
        samples.filter { $0.key.hasPrefix(prefix) }.values.reduce(0, +)
    }

    @Test func `concurrent requests share steps, each equal to its reply alone, and one hanging up disturbs none`() async throws {
        let server = try await TestServer.start(maxRunning: 8, threads: 2)
        let port = server.port
        // Alone: one request at a time.
        var alone: [Reply] = []
        for topic in Self.topics {
            let response = try await offPool { try LoopbackClient(port: port).post("/v1/chat/completions", json: Self.body(topic)) }
            #expect(response.status == 200, "\(response.text.prefix(300))")
            alone.append(try Self.reply(response.text))
        }
        let before = try await offPool { try Self.metrics(port: port) }

        // Together, plus a streaming client that hangs up after its first piece.
        let replies = Locked([String?](repeating: nil, count: Self.topics.count))
        let hungUp = Locked(false)
        try await offPool {
            let group = DispatchGroup()
            for (i, topic) in Self.topics.enumerated() {
                group.enter()
                Thread {
                    defer { group.leave() }
                    let response = try? LoopbackClient(port: port).post("/v1/chat/completions", json: Self.body(topic))
                    replies.withLock { $0[i] = response.map { "\($0.status) \($0.text)" } }
                }.start()
            }
            group.enter()
            Thread {
                defer { group.leave() }
                guard let client = try? LoopbackClient(port: port) else { return }
                client.send(Array("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(Self.body("snow", maxTokens: 200, stream: true).utf8.count)\r\n\r\n\(Self.body("snow", maxTokens: 200, stream: true))".utf8))
                guard (try? client.readHead())?.status == 200 else { return }
                client.hangUp()
                hungUp.withLock { $0 = true }
            }.start()
            group.wait()
        }
        #expect(hungUp.withLock { $0 }, "the hanging-up client never got a stream")
        var equal = 0
        for (i, text) in replies.withLock({ $0 }).enumerated() {
            let text = try #require(text, "request \(i) got no response")
            #expect(text.hasPrefix("200 "), "\(text.prefix(300))")
            let together = try Self.reply(String(text.dropFirst(4)))
            let same = zip(together.ids, alone[i].ids).prefix { $0 == $1 }.count
            if same == alone[i].ids.count && together.ids.count == same {
                equal += 1
            } else {
                // Only at a near-tie of the reply alone (top-2 logprobs within 1).
                let margin = same < alone[i].margins.count ? alone[i].margins[same] : 0
                #expect(margin < 1.0, "request \(i): batched reply left its reply alone at token \(same), where the top-2 margin is \(margin)")
            }
        }
        // Let the hung-up request notice and end (within a token; allow the model ten seconds).
        var after = try await offPool { try Self.metrics(port: port) }
        for _ in 0..<50 where (after["ondevice_requests_running{model=\"\(Self.model)\"}"] ?? 0) > 0 {
            try await Task.sleep(for: .milliseconds(200))
            after = try await offPool { try Self.metrics(port: port) }
        }
        let steps = Self.sum(after, "ondevice_batch_steps_total") - Self.sum(before, "ondevice_batch_steps_total")
        let sequences = Self.sum(after, "ondevice_batch_sequences_total") - Self.sum(before, "ondevice_batch_sequences_total")
        print("[server] batched: \(equal) of \(Self.topics.count) replies equal alone; \(Int(steps)) steps, mean batch \(String(format: "%.2f", sequences / max(1, steps)))")
        #expect(sequences / max(1, steps) > 2, "requests did not share steps: \(sequences) sequences in \(steps) steps")
        // The requests alone ran one after another on one session, each copied aside as the next
        // rewrote it; together, the new sessions started from those copies (and gave the replies
        // checked above).
        let hits = Self.sum(after, "ondevice_prompt_cache_hits_total") - Self.sum(before, "ondevice_prompt_cache_hits_total")
        let spared = Self.sum(after, "ondevice_prompt_cache_tokens_total") - Self.sum(before, "ondevice_prompt_cache_tokens_total")
        #expect(hits >= Double(Self.topics.count - 2) && spared >= 5 * hits, "prompt cache: \(hits) hits sparing \(spared) tokens")
        #expect(Self.sum(after, "ondevice_batch_busy_seconds_total") > Self.sum(before, "ondevice_batch_busy_seconds_total"))
        #expect(Self.sum(after, "ondevice_prompt_cache_bytes") > 0 && Self.sum(after, "ondevice_prompt_cache_capacity_bytes") > 0)
        let cancelled = after["ondevice_requests_total{model=\"\(Self.model)\",outcome=\"cancelled\"}"] ?? 0
        #expect(cancelled >= 1, "the hung-up request is not counted as cancelled: \(after.filter { $0.key.hasPrefix("ondevice_requests_total") })")
        let finished = (after["ondevice_requests_total{model=\"\(Self.model)\",outcome=\"length\"}"] ?? 0)
            + (after["ondevice_requests_total{model=\"\(Self.model)\",outcome=\"stop\"}"] ?? 0)
        #expect(finished == Double(2 * Self.topics.count), "finished requests: \(finished)")
        #expect((after["ondevice_time_to_first_token_seconds_count{model=\"\(Self.model)\"}"] ?? 0) >= Double(2 * Self.topics.count))
        #expect((after["ondevice_inter_token_seconds_count{model=\"\(Self.model)\"}"] ?? 0) > 0)
        #expect((after["ondevice_completion_tokens_total{model=\"\(Self.model)\"}"] ?? 0) > 0)
        #expect((after["ondevice_kv_cache_bytes{model=\"\(Self.model)\"}"] ?? 0) > 0)
        #expect((after["ondevice_requests_running{model=\"\(Self.model)\"}"] ?? -1) == 0)
        await server.stop(grace: 30)
    }

    @Test func `the KV budget holds how many requests run, the rest wait or get 429`() async throws {
        // Room for the model and two sessions of 2048 tokens (about 108 MB each), not eight.
        let server = try await TestServer.start(maxRunning: 8, maxWaiting: 2, budgetBytes: 420_000_000)
        let port = server.port
        let warm = try await offPool { try LoopbackClient(port: port).post("/v1/chat/completions", json: Self.body("rain", maxTokens: 2)) }
        #expect(warm.status == 200, "\(warm.text.prefix(300))")
        let limits = try await offPool { try Self.metrics(port: port) }
        let limit = try #require(limits["ondevice_requests_running_limit{model=\"\(Self.model)\"}"])
        #expect(limit >= 1 && limit <= 3, "running limit \(limit) under a budget for about two sessions")
        let budget = try #require(limits["ondevice_kv_cache_budget_bytes{model=\"\(Self.model)\"}"])
        #expect(budget > 0 && budget < 420_000_000)

        let statuses = Locked([Int]())
        try await offPool {
            let group = DispatchGroup()
            for topic in Self.topics + ["snow", "bees"] {
                group.enter()
                Thread {
                    defer { group.leave() }
                    let status = (try? LoopbackClient(port: port).post("/v1/chat/completions", json: Self.body(topic, maxTokens: 48)))?.status ?? -1
                    statuses.withLock { $0.append(status) }
                }.start()
            }
            group.wait()
        }
        let all = statuses.withLock { $0 }
        let ok = all.filter { $0 == 200 }.count, refused = all.filter { $0 == 429 }.count
        #expect(ok + refused == all.count, "statuses \(all)")
        #expect(ok >= Int(limit) && refused >= 1, "with \(Int(limit)) running and 2 waiting, 8 requests at once: \(all)")
        let after = try await offPool { try Self.metrics(port: port) }
        #expect((after["ondevice_sessions{model=\"\(Self.model)\"}"] ?? 99) <= limit, "more sessions than the budget holds")
        #expect((after["ondevice_requests_total{model=\"\(Self.model)\",outcome=\"rejected\"}"] ?? 0) == Double(refused))
        await server.stop(grace: 30)
    }
}
