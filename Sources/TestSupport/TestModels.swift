import Foundation

/// Finds real model files for tests that need them.
///
/// Searched recursively by file name under `searchRoots`.
package enum TestModels {
    package static let environmentKey = "ONDEVICE_TEST_MODELS"

    package static let smolLM2 = "SmolLM2-135M-Instruct.Q4_1.gguf"
    package static let gemma3 = "gemma-3-270m-q4_k_m.gguf"
    package static let qwen25 = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"

    /// Directories searched, in order: `$ONDEVICE_TEST_MODELS`, then the model store root
    /// (`$ONDEVICE_HOME`, else `$XDG_DATA_HOME/ondevice/models`, else
    /// `~/.local/share/ondevice/models`), where `scripts/setup.sh` installs the pinned models.
    package static var searchRoots: [String] {
        let env = ProcessInfo.processInfo.environment
        var roots: [String] = []
        if let r = env[environmentKey], !r.isEmpty { roots.append(r) }
        if let r = env["ONDEVICE_HOME"], !r.isEmpty {
            roots.append(r)
        } else {
            let data = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
                ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/share")
            roots.append((data as NSString).appendingPathComponent("ondevice/models"))
        }
        return roots
    }

    /// Path of the first file called `fileName` under the search roots, or nil.
    package static func path(_ fileName: String) -> String? {
        for root in searchRoots {
            let direct = (root as NSString).appendingPathComponent(fileName)
            if FileManager.default.fileExists(atPath: direct) { return direct }
            guard let walker = FileManager.default.enumerator(atPath: root) else { continue }
            while let relative = walker.nextObject() as? String {
                if (relative as NSString).lastPathComponent == fileName {
                    return (root as NSString).appendingPathComponent(relative)
                }
            }
        }
        return nil
    }
}
