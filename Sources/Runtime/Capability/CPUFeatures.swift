import Foundation
import Kernels

/// The processor behind a capability answer: architecture, the feature flags the kernel reports
/// (/proc/cpuinfo `flags` on x86, `Features` on arm64; lines read `name<tabs>: value`), and which
/// kernel path our matrix code takes.
///
/// Nothing here can make a model unsupported: every kernel has a portable scalar fallback, so any
/// CPU this binary runs on runs every model, only more slowly without SIMD.
package struct CPUFeatures: Sendable, Equatable, Codable {
    package var architecture: String
    package var flags: [String]
    /// Logical processors the process may use.
    package var cores: Int
    /// The tier the kernels dispatch to on this machine (`KernelTier.name`: CPUID and the OS's
    /// saved register state, capped by `ONDEVICE_KERNELS`); nil for flags read from elsewhere.
    package var dispatchedTier: String?

    package init(architecture: String, flags: [String], cores: Int, dispatchedTier: String? = nil) {
        self.architecture = architecture
        self.flags = flags
        self.cores = cores
        self.dispatchedTier = dispatchedTier
    }

    /// Reads /proc/cpuinfo under `root`; flags are empty where it is unreadable. On this
    /// machine's own root the kernel path is the tier the kernels really run.
    package static func current(root: String = "/", cores: Int) -> CPUFeatures {
        let text = CgroupLocator.readSmallFile((root == "/" ? "" : root) + "/proc/cpuinfo") ?? ""
        return CPUFeatures(architecture: compiledArchitecture, flags: parseFlags(text), cores: cores,
                           dispatchedTier: root == "/" ? KernelTier.name : nil)
    }

    package static var compiledArchitecture: String {
        #if arch(x86_64)
        "x86_64"
        #elseif arch(arm64)
        "arm64"
        #else
        "other"
        #endif
    }

    /// The first processor's flags, sorted.
    package static func parseFlags(_ cpuinfo: String) -> [String] {
        for line in cpuinfo.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            if key == "flags" || key == "Features" {
                return parts[1].split(separator: " ").map(String.init).sorted()
            }
        }
        return []
    }

    /// The matrix kernels' path: the dispatched tier when known (avx512, neon-dotprod, …), else
    /// from the flags: AVX2 with FMA and F16C when all three are present, else NEON on arm64,
    /// else portable scalar C.
    package var kernelPath: String {
        if let dispatchedTier { return dispatchedTier }
        let set = Set(flags)
        if architecture == "x86_64" && set.isSuperset(of: ["avx2", "fma", "f16c"]) { return "avx2" }
        if architecture == "arm64" { return set.contains("asimd") || flags.isEmpty ? "neon" : "scalar" }
        return "scalar"
    }

    /// Flags that matter to our kernels, for display.
    package var notableFlags: [String] {
        let notable: Set<String> = ["sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni",
                                    "avx_vnni", "asimd", "asimddp", "fphp", "i8mm", "sve"]
        return flags.filter(notable.contains)
    }
}
