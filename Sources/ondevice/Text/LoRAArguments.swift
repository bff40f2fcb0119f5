import CLISupport
import Foundation
import OnDevice

/// `--lora FILE|ID[:SCALE]` (repeatable): LoRA adapters for `generate`, `chat` and `bench`.
/// FILE is a GGUF LoRA adapter; ID an adapter installed in the model store (`ondevice lora
/// import`); SCALE defaults to 1. Several adapters add their deltas. The public API loads and
/// checks each against the model with the request.
struct LoRAChoice {
    var source: String
    var path: String
    var scale: Float

    static func all(_ a: Arguments) async throws -> [LoRAChoice] {
        var out: [LoRAChoice] = []
        for value in a.all("lora") {
            let (source, scale) = try split(value)
            out.append(LoRAChoice(source: source, path: try await ModelLocator.path(for: source), scale: scale))
        }
        return out
    }

    /// `FILE[:SCALE]` → (FILE, SCALE). A value that names an existing file is taken whole, so
    /// paths with a colon still work.
    static func split(_ value: String) throws -> (String, Float) {
        guard !FileManager.default.fileExists(atPath: value), let colon = value.lastIndex(of: ":") else { return (value, 1) }
        let tail = value[value.index(after: colon)...]
        guard let scale = Float(tail), scale.isFinite else {
            throw CLIError.invalidValue(option: "--lora", value: value, expected: "FILE|ID[:SCALE] with a numeric SCALE")
        }
        return (String(value[..<colon]), scale)
    }

    var lora: LoRA { LoRA(path: path, scale: scale) }

    /// What `--json` reports about an applied adapter, with what loading it found.
    func json(_ loaded: LoadedAdapter?) -> [String: Any] {
        var out: [String: Any] = ["source": source, "path": path, "scale": Double(scale)]
        if let loaded {
            out["name"] = loaded.name
            out["alpha"] = Double(loaded.alpha)
            out["rank"] = loaded.rank
            out["bytes"] = loaded.bytes
        }
        return out
    }
}
