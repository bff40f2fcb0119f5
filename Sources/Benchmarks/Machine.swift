import Foundation

/// The processor, core count and the features that matter to the benchmarks.
enum Machine {
    static var summary: String {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        let lines = info.split(separator: "\n")
        let name = lines.first { $0.hasPrefix("model name") }
            .map { String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let flags = Set(lines.first { $0.hasPrefix("flags") }?.split(separator: " ").map(String.init) ?? [])
        let features = ["sha_ni", "avx2", "avx512f"].filter(flags.contains).joined(separator: ",")
        return "\(name), \(ProcessInfo.processInfo.activeProcessorCount) cores (\(features))"
    }
}

extension Machine {
    /// The 1-minute load average: wall-clock numbers from a busy machine need it beside them.
    static var loadAverage: String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
    }
}
