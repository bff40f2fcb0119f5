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
/// `--load-test SECONDS` instead serves on an ephemeral loopback port, drives it with
/// `--clients N` concurrent chat clients, prints the latency figures and exits.
enum ServeCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["host", "port", "api-key", "models", "threads", "context", "max-running", "max-queue",
                                              "load-test", "clients", "model"], flags: [])
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
        if let n = try positive(a, "max-running") { c.maxRunningPerModel = n }
        if let n = try a.int("max-queue") { c.maxWaitingPerModel = max(0, n) }
        if let seconds = try positive(a, "load-test") {
            c.host = "127.0.0.1"
            c.port = 0
            c.apiKey = nil
            return try await loadTest(c, seconds: Double(seconds), clients: try positive(a, "clients") ?? 16,
                                      model: a.string("model") ?? "smollm2-135m-instruct-q4_1")
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

    private static func loadTest(_ c: ServerConfiguration, seconds: Double, clients: Int, model: String) async throws {
        let server = try await APIServer.start(c)
        let report = LoadTest(port: server.port, clients: clients, seconds: seconds, model: model).run()
        print(report.summary)
        await server.stop()
        if report.errors > 0 { throw CLIError.io("load test: \(report.errors) errors") }
    }
}
