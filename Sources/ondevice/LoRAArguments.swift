import Foundation
import Models
import OnDevice
import TextGeneration

/// `--lora FILE|ID[:SCALE]` (repeatable): LoRA adapters for `generate`, `chat` and `bench`.
/// FILE is a GGUF LoRA adapter; ID an adapter installed in the model store (`ondevice lora
/// import`); SCALE defaults to 1. Several adapters add their deltas.
struct LoRAArgument {
    /// What the user wrote before the scale.
    var source: String
    var path: String
    var scale: Float
    var adapter: LoRAAdapter

    /// Every `--lora` of `a`, resolved and loaded for `model` (a mismatched adapter fails here).
    static func all(_ a: Arguments, model: LanguageModel) async throws -> [LoRAArgument] {
        var out: [LoRAArgument] = []
        for value in a.all("lora") {
            let (source, scale) = try split(value)
            let path = try await ModelLocator.path(for: source)
            do {
                out.append(LoRAArgument(source: source, path: path, scale: scale, adapter: try model.loadAdapter(path: path)))
            } catch {
                throw CLIError.io("LoRA adapter '\(source)': \(error)")
            }
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

    var scaled: ScaledAdapter { ScaledAdapter(adapter, scale: scale) }

    /// What `--json` reports about an applied adapter.
    var json: [String: Any] {
        ["source": source, "path": path, "name": adapter.name, "scale": Double(scale), "alpha": Double(adapter.alpha),
         "rank": adapter.maxRank, "matrices": adapter.pairCount]
    }
}

/// `--lora FILE|ID[:SCALE]` for the commands that run through the public API, which loads and
/// checks the adapter against the model with the request.
struct LoRAChoice {
    var source: String
    var path: String
    var scale: Float

    static func all(_ a: Arguments) async throws -> [LoRAChoice] {
        var out: [LoRAChoice] = []
        for value in a.all("lora") {
            let (source, scale) = try LoRAArgument.split(value)
            out.append(LoRAChoice(source: source, path: try await ModelLocator.path(for: source), scale: scale))
        }
        return out
    }

    var lora: LoRA { LoRA(path: path, scale: scale) }

    /// What `--json` reports about an applied adapter, with what loading it found.
    func json(_ loaded: LoadedAdapter?) -> [String: Any] {
        var out: [String: Any] = ["source": source, "path": path, "scale": Double(scale)]
        if let loaded {
            out["name"] = loaded.name
            out["alpha"] = Double(loaded.alpha)
            out["rank"] = loaded.rank
        }
        return out
    }
}
