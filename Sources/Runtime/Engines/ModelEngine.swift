import ModelStore

/// How a run of a model is configured: for decoders the context the session is sized for and the
/// kernel threads; other kinds ignore what does not apply to them.
package struct LoadOptions: Sendable, Equatable, Hashable, Codable {
    package var contextLength: Int
    package var threads: Int

    package init(contextLength: Int = 4096, threads: Int = 1) {
        self.contextLength = max(1, contextLength)
        self.threads = max(1, threads)
    }
}

/// One kind of model the runtime can load: builds the loader for an installed model. The LLM,
/// speech recognition, voice-activity and speech synthesis engines live here; the embedding engine needs
/// Retrieval (a peer layer), so the OnDevice composition root registers it
/// (`EngineRegistry.complete`).
package protocol ModelEngine: Sendable {
    var kind: ModelKind { get }
    /// A loader for the model installed in `directory` (`<root>/<repo>/<revision>/<variant>`).
    func loader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> any ResidentModelLoading
}

extension ModelEngine {
    package func loader(for model: InstalledModel, options: LoadOptions) throws(RuntimeError) -> any ResidentModelLoading {
        try loader(for: model.entry, in: model.directory, options: options)
    }
}

/// Decoder-only language models from a single GGUF file.
package struct LanguageModelEngine: ModelEngine {
    package init() {}
    package var kind: ModelKind { .llm }

    package func loader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> any ResidentModelLoading {
        try typedLoader(for: entry, in: directory, options: options)
    }

    package func typedLoader(for entry: CatalogEntry, in directory: String, options: LoadOptions) throws(RuntimeError) -> LanguageModelLoader {
        guard let file = entry.files.first(where: { $0.name.hasSuffix(".gguf") }) else {
            throw .load(modelId: entry.id, reason: "no .gguf file among \(entry.files.map(\.name))")
        }
        return LanguageModelLoader(modelId: entry.id, path: directory + "/" + file.name,
                                   contextLength: options.contextLength, threads: options.threads)
    }
}

/// The engines in this build, by model kind.
package struct EngineRegistry: Sendable {
    private var engines: [ModelKind: any ModelEngine] = [:]

    /// The engines the runtime layer itself provides.
    package static let runtimeEngines: [any ModelEngine] = [LanguageModelEngine(), SpeechRecognitionEngine(), VoiceActivityEngine(),
                                                            SpeechSynthesisEngine(), VisionEngine()]

    package init(_ engines: [any ModelEngine] = EngineRegistry.runtimeEngines) {
        for engine in engines { register(engine) }
    }

    package mutating func register(_ engine: any ModelEngine) { engines[engine.kind] = engine }

    package func engine(for kind: ModelKind) -> (any ModelEngine)? { engines[kind] }

    package var kinds: [ModelKind] { ModelKind.allCases.filter { engines[$0] != nil } }
}
