import CLISupport
import Dispatch
import Foundation
import Server
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `ondevice serve [--host H] [--port P] [--api-key K] [--models ID,...]`: the OpenAI-compatible
/// server. Runs until SIGINT or SIGTERM, then finishes running requests (10 s grace) and exits.
/// `--load-test SECONDS` instead serves on an ephemeral loopback port (or, with `--target-port P`,
/// drives a server already listening on 127.0.0.1:P, such as llama-server, with the same
/// generator), runs `--clients N[,N...]` concurrent streaming chat clients for SECONDS each,
/// prints throughput, time to first token and inter-token figures per client count, and exits.
enum ServeCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["host", "port", "api-key", "models", "threads", "context", "max-running", "max-queue",
                                              "load-test", "clients", "model", "parallel", "batching", "max-tokens",
                                              "target-port", "prompt-cache"], flags: [])
        guard a.positionals.isEmpty else { throw CLIError.io("serve takes no arguments, got '\(a.positionals[0])'") }
        var c = ServerConfiguration()
        if let host = a.string("host") { c.host = host == "localhost" ? "127.0.0.1" : host }
        if let port = try a.int("port") {
            guard (0...65535).contains(port) else { throw CLIError.invalidValue(option: "--port", value: String(port), expected: "a port (0-65535)") }
            c.port = UInt16(port)
        }
        c.apiKey = a.string("api-key") ?? ProcessInfo.processInfo.environment["ONDEVICE_API_KEY"]
        c.models = a.string("models").map { $0.split(separator: ",").map { String($0) } }
        c.threads = try positive(a, "threads")
        c.contextLength = try positive(a, "context")
        if let n = try positive(a, "max-running") ?? positive(a, "parallel") { c.maxRunningPerModel = n }
        if let batching = a.string("batching") {
            guard ["on", "off"].contains(batching) else { throw CLIError.invalidValue(option: "--batching", value: batching, expected: "on or off") }
            c.batching = batching == "on"
        }
        if let n = try a.int("max-queue") { c.maxWaitingPerModel = max(0, n) }
        if let mib = try a.int("prompt-cache") {
            guard (0...(1 << 30)).contains(mib) else {
                throw CLIError.invalidValue(option: "--prompt-cache", value: String(mib), expected: "MiB, from 0 to 1073741824")
            }
            c.promptCacheBytes = mib << 20
        }
        if let seconds = try positive(a, "load-test") {
            c.host = "127.0.0.1"
            c.port = 0
            c.apiKey = nil
            let counts = try (a.string("clients") ?? "16").split(separator: ",").map { part in
                guard let n = Int(part), n >= 1 else { throw CLIError.invalidValue(option: "--clients", value: String(part), expected: "counts of at least 1, like 1,4,8") }
                return n
            }
            var target: UInt16?
            if let port = try a.int("target-port") {
                guard (1...65535).contains(port) else { throw CLIError.invalidValue(option: "--target-port", value: String(port), expected: "a port (1-65535)") }
                target = UInt16(port)
            }
            return try await loadTest(c, seconds: Double(seconds), clients: counts, model: a.string("model") ?? "smollm2-135m-instruct-q4_1",
                                      maxTokens: try positive(a, "max-tokens") ?? 64, target: target)
        }
        do { try c.validate() } catch { throw CLIError.io("\(error)") }
        // Signals are taken by dispatch sources, not the default handler, so the server can stop cleanly.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let server = try await APIServer.start(c)
        writeOut("ondevice serve: listening on http://\(c.host):\(server.port)/v1 (OpenAI) and /api (Ollama) (Ctrl-C to stop)\n")
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { continuation.yield(sig) }
            source.resume()
            sources.append(source)
        }
        for await sig in signals {
            print("ondevice serve: \(sig == SIGINT ? "SIGINT" : "SIGTERM"), stopping")
            break
        }
        await server.stop()
        sources.forEach { $0.cancel() }
    }

    private static func positive(_ a: Arguments, _ name: String) throws -> Int? {
        guard let n = try a.int(name) else { return nil }
        guard n >= 1 else { throw CLIError.invalidValue(option: "--\(name)", value: String(n), expected: "at least 1") }
        return n
    }

    private static func loadTest(_ c: ServerConfiguration, seconds: Double, clients: [Int], model: String, maxTokens: Int,
                                 target: UInt16?) async throws {
        let server = target == nil ? try await APIServer.start(c) : nil
        let port = target ?? server!.port
        print(target == nil
              ? "load test: ondevice serve, \(model), parallel \(c.maxRunningPerModel), batching \(c.batching ? "on" : "off"), \(maxTokens) tokens a reply, \(Int(seconds)) s per client count"
              : "load test: the server on 127.0.0.1:\(port), \(model), \(maxTokens) tokens a reply, \(Int(seconds)) s per client count")
        if let failure = LoadTest(port: port, clients: 1, seconds: seconds, model: model, maxTokens: maxTokens).warmUp() {
            await server?.stop()
            throw CLIError.io("load test: the warm-up request failed: \(failure)")
        }
        var errors = 0
        var single: Double?
        for count in clients {
            let before = target == nil ? batchFigures(port: port) : nil
            let started = ContinuousClock.now
            let report = LoadTest(port: port, clients: count, seconds: seconds, model: model, maxTokens: maxTokens).run()
            var line = report.summary
            if count == 1 { single = report.aggregateTokensPerSecond }
            if let single, count > 1 { line += String(format: "; %.2fx one client", report.aggregateTokensPerSecond / max(single, 1e-9)) }
            if let before, let after = batchFigures(port: port), after.steps > before.steps {
                line += String(format: "; mean batch %.1f", Double(after.sequences - before.sequences) / Double(after.steps - before.steps))
                let wall = (ContinuousClock.now - started) / .seconds(1)
                line += String(format: ", passes busy %.0f%% of the time", 100 * (after.busy - before.busy) / max(wall, 1e-9))
            }
            print(line)
            errors += report.errors
        }
        await server?.stop()
        if errors > 0 { throw CLIError.io("load test: \(errors) errors") }
    }

    /// Batch steps, sequences and busy seconds so far, summed over models, from the server's own `/metrics`.
    private static func batchFigures(port: UInt16) -> (steps: Int, sequences: Int, busy: Double)? {
        guard let client = try? LoopbackClient(port: port, timeout: 10), let page = try? client.request("GET", "/metrics"), page.status == 200 else { return nil }
        var steps = 0, sequences = 0, busy = 0.0
        for line in page.text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let value = Double(parts[1]) else { continue }
            if parts[0].hasPrefix("ondevice_batch_steps_total{") { steps += Int(value) }
            if parts[0].hasPrefix("ondevice_batch_sequences_total{") { sequences += Int(value) }
            if parts[0].hasPrefix("ondevice_batch_busy_seconds_total{") { busy += value }
        }
        return (steps, sequences, busy)
    }
}
