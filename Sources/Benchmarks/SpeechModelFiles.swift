import CLISupport
import Foundation

/// Finds the folder or file of a speech model given as `--model`: a path, or a catalog id
/// resolved (and pulled on first use) through the model store.
enum SpeechModelFiles {
    /// The folder holding a faster-whisper model (`model.bin`, `config.json`, `tokenizer.json`).
    static func whisperDirectory(_ argument: String) async throws -> String {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: argument, isDirectory: &isDir) {
            return isDir.boolValue ? argument : (argument as NSString).deletingLastPathComponent
        }
        let installed = try await BenchModels.installed(argument)
        guard let bin = installed.path(of: "model.bin") else { throw CLIError.io("model '\(argument)' is not a Whisper model (no model.bin)") }
        return (bin as NSString).deletingLastPathComponent
    }
}
