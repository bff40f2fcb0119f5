import CLISupport
import Foundation

/// The processor, core count and the features that matter to the benchmarks.
enum Machine {
    static var summary: String {
        let features = ["sha_ni", "avx2", "avx512f"].filter(CPUInfo.flags.contains).joined(separator: ",")
        return "\(CPUInfo.modelName), \(ProcessInfo.processInfo.activeProcessorCount) cores (\(features))"
    }
}

extension Machine {
    /// The 1-minute load average: wall-clock numbers from a busy machine need it beside them.
    static var loadAverage: String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
    }
}
