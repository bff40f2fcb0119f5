import Foundation
import OnDevice
import Platform
import Runtime
import Server

/// `Benchmarks soak`: many clients at once against an in-process `ondevice serve` for a fixed
/// time, over every kind of request a server meets — streamed chat, completions, embeddings,
/// transcription, malformed requests and clients that hang up mid-stream. Reports per kind the
/// requests, statuses and latency; the 5xx count; the process's resident memory over time; and,
/// once the clients have stopped, the leases and text sessions still held (a leak if not zero).
struct SoakBenchmark {
    var seconds = 60.0
    var clients = 16
    var threads = 2
    var warmUp = 10.0
    var audioPath = "../shared/golden/tts/t02_weather.wav"
    var json = false
    /// The kinds sent, in schedule order (all by default; `--only chat,embeddings` narrows it,
    /// to find which kind a memory growth comes from).
    var schedule = SoakRequests.Kind.schedule

    init(arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let flag = rest.popFirst() {
            if flag == "--json" {
                json = true
                continue
            }
            guard let value = rest.popFirst() else { throw BenchmarkError("\(flag) needs a value") }
            switch flag {
            case "--seconds": seconds = try Self.number(flag, value)
            case "--clients": clients = Int(try Self.number(flag, value))
            case "--threads": threads = Int(try Self.number(flag, value))
            case "--warm-up": warmUp = try Self.number(flag, value)
            case "--audio": audioPath = value
            case "--only":
                let names = value.split(separator: ",").map(String.init)
                let known = Set(SoakRequests.Kind.allCases.map(\.flag))
                if let unknown = names.first(where: { !known.contains($0) }) {
                    throw BenchmarkError("--only: no kind '\(unknown)' (kinds: \(SoakRequests.Kind.allCases.map(\.flag).joined(separator: ", ")))")
                }
                schedule = SoakRequests.Kind.schedule.filter { names.contains($0.flag) }
            default: throw BenchmarkError("unknown option \(flag)")
            }
        }
    }

    static func number(_ flag: String, _ value: String) throws -> Double {
        guard let n = Double(value), n > 0 else { throw BenchmarkError("\(flag) needs a positive number, not '\(value)'") }
        return n
    }

    func run() async throws {
        let audio = try Array(Data(contentsOf: URL(fileURLWithPath: audioPath)))
        var dependencies = RuntimeDependencies.complete()
        dependencies.settingsFile = nil
        var settings = RuntimeSettings()
        settings.threads = threads
        settings.contextLength = 2048
        dependencies.initialSettings = settings
        let runtime = try await OnDeviceRuntime.make(dependencies)
        var configuration = ServerConfiguration()
        configuration.port = 0
        let server = try APIServer(ai: OnDeviceAI(runtime: runtime), configuration: configuration)
        let port = server.port
        let requests = SoakRequests(audio: audio)

        // Every model loaded once before the clock starts, so the soak measures serving.
        for kind in Set(schedule) where kind.loadsModel {
            let status = requests.perform(kind, client: 0, turn: 0, port: port)
            guard status == 200 else { throw BenchmarkError("warm-up request '\(kind.rawValue)' answered \(status)") }
        }

        let tally = SoakTally()
        let memory = Locked<[(seconds: Double, bytes: Int)]>([])
        let started = ContinuousClock.now
        let deadline = started + .seconds(seconds)
        let done = DispatchGroup()
        for client in 0..<clients {
            done.enter()
            Thread {
                defer { done.leave() }
                var turn = client
                while ContinuousClock.now < deadline {
                    let kind = schedule[turn % schedule.count]
                    turn += 1
                    let began = ContinuousClock.now
                    let status = requests.perform(kind, client: client, turn: turn, port: port)
                    tally.record(kind, status: status, seconds: (ContinuousClock.now - began).seconds)
                }
            }.start()
        }
        // Resident memory once a second, while the clients run.
        while done.wait(timeout: .now() + 1) == .timedOut {
            memory.withLock { $0.append(((ContinuousClock.now - started).seconds, Self.residentBytes())) }
        }
        // Lease releases are asynchronous: give them a moment before counting.
        try await Task.sleep(for: .seconds(2))
        let snapshot = await runtime.residency.snapshot()
        let leases = snapshot.models.reduce(0) { $0 + $1.leases }
        let sessions = await runtime.textSessionsInUse()
        await server.stop(grace: 5)
        let report = SoakReport(seconds: seconds, clients: clients, threads: threads, warmUp: warmUp, tally: tally.snapshot(),
                                memory: memory.withLock { $0 }, leases: leases, queued: snapshot.queued, sessionsInUse: sessions)
        print(json ? report.json : report.text)
        if !report.passed { throw BenchmarkError("the soak failed a verdict above") }
    }

    /// VmRSS of this process, from /proc (0 where there is none).
    static func residentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return 0 }
        return kib * 1024
    }
}

extension OnDeviceRuntime {
    /// Text sessions checked out of every resident language model now (zero once all requests
    /// have ended; more means a leak).
    func textSessionsInUse() async -> Int {
        var total = 0
        for model in await residency.residentModels {
            if let text = model as? ResidentLanguageModel { total += text.sessionCounts.live - text.sessionCounts.idle }
        }
        return total
    }
}
