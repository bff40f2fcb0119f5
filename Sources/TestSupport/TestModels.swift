import Foundation

/// Finds real model files for tests that need them.
///
/// Set `ONDEVICE_TEST_MODELS` to a directory; it is searched recursively by file name. Tests use
/// `.enabled(if: TestModels.path(...) != nil)` so they run exactly when the file is there.
package enum TestModels {
    package static let environmentKey = "ONDEVICE_TEST_MODELS"

    package static let smolLM2 = "SmolLM2-135M-Instruct.Q4_1.gguf"
    package static let gemma3 = "gemma-3-270m-q4_k_m.gguf"

    /// Path of the first file called `fileName` under `$ONDEVICE_TEST_MODELS`, or nil.
    package static func path(_ fileName: String) -> String? {
        guard let root = ProcessInfo.processInfo.environment[environmentKey], !root.isEmpty else { return nil }
        let direct = (root as NSString).appendingPathComponent(fileName)
        if FileManager.default.fileExists(atPath: direct) { return direct }
        guard let walker = FileManager.default.enumerator(atPath: root) else { return nil }
        while let relative = walker.nextObject() as? String {
            if (relative as NSString).lastPathComponent == fileName {
                return (root as NSString).appendingPathComponent(relative)
            }
        }
        return nil
    }
}
