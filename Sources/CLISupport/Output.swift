import Foundation

/// Writes a JSON object as one line on stdout (sorted keys, slashes unescaped).
package func printJSON(_ object: [String: Any]) throws {
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

/// The processor's model name and features, from /proc/cpuinfo, for benchmark reports.
package enum CPUInfo {
    private static var lines: [Substring] {
        (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)).map { $0.split(separator: "\n") } ?? []
    }

    package static var modelName: String {
        lines.first { $0.hasPrefix("model name") }
            .map { String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces) } ?? "unknown"
    }

    package static var flags: Set<String> { Set(lines.first { $0.hasPrefix("flags") }?.split(separator: " ").map(String.init) ?? []) }

    /// Name, cores and SIMD features (and an `ONDEVICE_KERNELS` cap when set).
    package static var summary: String {
        let simd = ["avx2", "fma", "f16c", "avx512f", "avx512_vnni"].filter(flags.contains).joined(separator: ",")
        let cap = ProcessInfo.processInfo.environment["ONDEVICE_KERNELS"].map { "; ONDEVICE_KERNELS=\($0)" } ?? ""
        return "\(modelName) (\(ProcessInfo.processInfo.activeProcessorCount) cores; \(simd)\(cap))"
    }
}

/// CPU time of this process (all threads), in seconds: with other work on the machine, wall
/// time alone says little. The process CPU clock, not getrusage: `RUSAGE_SELF` is a C enum in
/// Glibc and a plain Int32 in Darwin, while this spelling builds on both.
package func processCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}
