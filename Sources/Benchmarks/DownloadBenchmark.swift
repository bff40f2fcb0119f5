import Foundation
import ModelStore
import TestSupport

/// Download throughput of the model store against curl, on one file served by the same loopback
/// server. Ours is a whole `ModelStore.pull`: HTTP, SHA-256 while streaming, fsync, atomic
/// install. curl only writes the file (`curl -s -o`), so the ratio charges us for verifying and
/// for durability; a third series, curl followed by an fsync of its file, shows how much of the
/// gap is the disk (a pull may not return before its bytes are on disk: a model renamed into
/// place before that could be garbage after a power cut yet have the right size). Runs
/// alternate so background load hits all alike; medians are reported, with CPU seconds per GB,
/// which a busy machine disturbs less than wall time.
struct DownloadBenchmark {
    var sizeMiB = 256
    var runs = 3
    var json = false

    init(arguments: ArraySlice<String>) throws {
        var rest = arguments[...]
        while let option = rest.popFirst() {
            switch option {
            case "--size": sizeMiB = try Self.positive(rest.popFirst(), option)
            case "--runs": runs = try Self.positive(rest.popFirst(), option)
            case "--json": json = true
            default: throw BenchmarkError("unknown option \(option)")
            }
        }
    }

    func run() async throws {
        let body = BlobServer.blob(sizeMiB: sizeMiB)
        let sha = SHA256.hex(of: body)
        let hashRates = Self.hashRates(body)
        let server = try BlobServer(sizeMiB: sizeMiB)
        defer { server.stop() }
        let scratch = try TemporaryDirectory(prefix: "ondevice-bench")
        defer { scratch.cleanup() }

        var ours = [Measurement](), curl = [Measurement](), durable = [Measurement]()
        for run in 0..<runs {
            ours.append(try await pull(from: server.url, sha: sha, bytes: body.count, root: scratch.file("store-\(run)")))
            FileSystem.removeTree(scratch.file("store-\(run)"))
            curl.append(try curlTransfer(url: server.url.absoluteString + BlobServer.path, output: scratch.file("curl-\(run).bin")))
            FileSystem.removeTree(scratch.file("curl-\(run).bin"))
            durable.append(try curlTransfer(url: server.url.absoluteString + BlobServer.path, output: scratch.file("curl-\(run).bin"), fsync: true))
            FileSystem.removeTree(scratch.file("curl-\(run).bin"))
        }
        let mb = Double(body.count) / 1e6, gb = mb / 1000
        let oursRate = mb / Self.median(ours.map(\.seconds)), curlRate = mb / Self.median(curl.map(\.seconds))
        let durableRate = mb / Self.median(durable.map(\.seconds))
        let oursCPU = Self.median(ours.map(\.cpuSeconds)) / gb, curlCPU = Self.median(curl.map(\.cpuSeconds)) / gb
        if json {
            let object: [String: Any] = [
                "size_bytes": body.count, "runs": runs, "ours_mb_per_s": oursRate, "curl_mb_per_s": curlRate,
                "ratio": oursRate / curlRate, "curl_fsync_mb_per_s": durableRate, "ratio_to_curl_fsync": oursRate / durableRate,
                "ours_cpu_seconds_per_gb": oursCPU, "curl_cpu_seconds_per_gb": curlCPU,
                "sha256_backend": "\(SHA256.Backend.preferred)", "sha256_mb_per_s": hashRates.preferred,
                "sha256_portable_mb_per_s": hashRates.portable, "machine": Machine.summary, "load_average": Machine.loadAverage,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print("download: \(sizeMiB) MiB from a loopback server (child process), \(runs) runs each, median")
        print(String(format: "  ondevice pull (sha256 + fsync + install)  %7.1f MB/s  %5.2f CPU s/GB", oursRate, oursCPU))
        print(String(format: "  curl -s -o                                %7.1f MB/s  %5.2f CPU s/GB", curlRate, curlCPU))
        print(String(format: "  curl -s -o, then fsync                    %7.1f MB/s", durableRate))
        print(String(format: "  ratio ours/curl                           %7.2f  (goal >= 0.80)", oursRate / curlRate))
        print(String(format: "  ratio ours/(curl + fsync)                 %7.2f", oursRate / durableRate))
        print(String(format: "  sha256 alone (per CPU second): %@ %.0f MB/s, portable Swift %.0f MB/s", "\(SHA256.Backend.preferred)",
                     hashRates.preferred, hashRates.portable))
        print("machine: \(Machine.summary), load average \(Machine.loadAverage)")
    }

    /// Wall time and CPU time (user + system) of one transfer.
    struct Measurement {
        var seconds: Double
        var cpuSeconds: Double
    }

    /// One cold pull of a custom model pinned by size and digest into an empty store. CPU time is
    /// this process's, which during the pull is only the client (the server is a child process).
    private func pull(from hub: URL, sha: String, bytes: Int, root: String) async throws -> Measurement {
        let store = try ModelStore(configuration: StoreConfiguration(root: root, hfEndpoint: hub))
        let entry = CatalogEntry.custom(id: "bench-blob", repo: "bench/blob",
                                        files: [ModelFile(name: "blob.bin", bytes: Int64(bytes), sha256: sha, sourcePath: "blob.bin")])
        try await store.register(entry)
        let cpu = Self.cpuSeconds(Int32(RUSAGE_SELF.rawValue))
        let start = ContinuousClock.now
        _ = try await store.pull(entry.id)
        return Measurement(seconds: (ContinuousClock.now - start) / .seconds(1), cpuSeconds: Self.cpuSeconds(Int32(RUSAGE_SELF.rawValue)) - cpu)
    }

    /// curl writing the file (then, with `fsync`, this process flushing it to disk); curl's CPU
    /// time arrives in RUSAGE_CHILDREN once it is reaped.
    private func curlTransfer(url: String, output: String, fsync flush: Bool = false) throws -> Measurement {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-f", "-o", output, url]
        let cpu = Self.cpuSeconds(Int32(RUSAGE_CHILDREN.rawValue))
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkError("curl exited with \(process.terminationStatus)") }
        if flush {
            let fd = open(output, O_RDONLY)
            guard fd >= 0 else { throw BenchmarkError("cannot open \(output)") }
            defer { close(fd) }
            guard fsync(fd) == 0 else { throw BenchmarkError("fsync \(output) failed (errno \(errno))") }
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        return Measurement(seconds: seconds, cpuSeconds: Self.cpuSeconds(Int32(RUSAGE_CHILDREN.rawValue)) - cpu)
    }

    private static func cpuSeconds(_ who: Int32) -> Double {
        var usage = rusage()
        getrusage(who, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// SHA-256 alone over the same bytes, so the report shows how much of a pull hashing costs.
    /// Timed in this thread's CPU time: on a shared machine wall time mostly measures the others.
    private static func hashRates(_ body: [UInt8]) -> (preferred: Double, portable: Double) {
        let sample = Array(body.prefix(64 << 20))
        func rate(_ backend: SHA256.Backend) -> Double {
            let start = threadCPUSeconds()
            var hasher = SHA256(backend: backend)
            sample.withUnsafeBytes { hasher.update($0) }
            _ = hasher.finalize()
            return Double(sample.count) / 1e6 / (threadCPUSeconds() - start)
        }
        return (rate(.preferred), rate(.portable))
    }

    private static func threadCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    private static func positive(_ text: String?, _ option: String) throws -> Int {
        guard let text, let value = Int(text), value > 0 else { throw BenchmarkError("\(option) needs a positive integer") }
        return value
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
