import ModelStore

/// What the user chose, as persisted in `settings.json`. Missing keys take their defaults, so a
/// file written by an older version still loads.
package struct RuntimeSettings: Sendable, Equatable, Codable {
    /// Catalog id of the model behind generate, chat, summarize, translate and proofread; nil
    /// gives each op its own default (`Op.defaultModelId`).
    package var textModel: String?
    /// Tokens of context each text session holds (KV cache size).
    package var contextLength: Int = 4096
    /// Kernel threads; nil picks the machine's core count.
    package var threads: Int?
    /// Ollama-style keep-alive in seconds: > 0 a time, 0 unload after each op, < 0 keep.
    package var keepAliveSeconds: Double = 300
    /// Share of available memory models may take.
    package var memoryFraction: Double = MemoryBudgetPolicy.defaultFraction
    /// A fixed resident-bytes budget instead of the fraction.
    package var memoryBudgetBytes: Int?
    /// Which backend describes photos for similarity: `auto` (the neural model when it is
    /// installed and this build runs it, else perceptual), `perceptual` or `neural`.
    package var photoBackend: PhotoBackendPreference = .automatic

    package init() {}

    /// The text model `op` runs on: the chosen one, else the op's default.
    package func textModelId(for op: Op) -> String { textModel ?? op.defaultModelId }

    package init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = RuntimeSettings()
        textModel = try c.decodeIfPresent(String.self, forKey: .textModel)
        contextLength = try c.decodeIfPresent(Int.self, forKey: .contextLength) ?? defaults.contextLength
        threads = try c.decodeIfPresent(Int.self, forKey: .threads)
        keepAliveSeconds = try c.decodeIfPresent(Double.self, forKey: .keepAliveSeconds) ?? defaults.keepAliveSeconds
        memoryFraction = try c.decodeIfPresent(Double.self, forKey: .memoryFraction) ?? defaults.memoryFraction
        memoryBudgetBytes = try c.decodeIfPresent(Int.self, forKey: .memoryBudgetBytes)
        photoBackend = try c.decodeIfPresent(PhotoBackendPreference.self, forKey: .photoBackend) ?? defaults.photoBackend
    }

    /// Checks ranges, so a bad value is reported where it was written instead of misbehaving later.
    package func validated(path: String) throws(RuntimeError) -> RuntimeSettings {
        func bad(_ detail: String) -> RuntimeError { .settingsInvalid(path: path, detail: detail) }
        guard contextLength >= 1 else { throw bad("contextLength must be at least 1, not \(contextLength)") }
        if let threads, threads < 1 { throw bad("threads must be at least 1, not \(threads)") }
        guard memoryFraction > 0, memoryFraction <= 1 else { throw bad("memoryFraction must be in (0, 1], not \(memoryFraction)") }
        if let bytes = memoryBudgetBytes, bytes < 0 { throw bad("memoryBudgetBytes must not be negative") }
        guard keepAliveSeconds.isFinite else { throw bad("keepAliveSeconds must be a number") }
        if let textModel {
            do { try SafeName.checkModelId(textModel) } catch { throw bad("textModel: \(error)") }
        }
        return self
    }
}

/// The photo-similarity backend the user asked for (`settings.json` key `photoBackend`).
package enum PhotoBackendPreference: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// Neural when available, else perceptual.
    case automatic = "auto"
    /// The built-in perceptual descriptor (DCT hash + colour histogram), always available.
    case perceptual
    /// The image-feature model; when it cannot run, the feature says so and falls back.
    case neural
}
