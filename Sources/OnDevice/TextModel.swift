import TextGeneration
import Tokenizers

/// One text model of an instance: generation, chat, structured output, tools and chat sessions
/// on it. A handle is a cheap value; its model loads on first use through the runtime's
/// residency cache like every op's, so several models can serve one program side by side within
/// the memory budget, and each is evicted when idle like any other.
///
/// ```swift
/// let ai = OnDeviceAI()
/// let coder = ai.textModel("qwen2.5-coder-0.5b-instruct-q4_k_m")
/// let reply = try await coder.chat([.user("Write a Swift function that reverses a string.")])
/// ```
public struct TextModel: Sendable {
    /// The model: a catalog id, the id of a model added to the store, or the path of a GGUF file.
    public let id: String
    let ai: OnDeviceAI

    /// Generates a continuation of `prompt`. Chat models answer it as a user turn (after
    /// `system`, if given); `raw` feeds it to the model as is, as does a model without a chat
    /// template.
    public func generate(_ prompt: String, system: String? = nil, options: TextOptions = TextOptions(),
                         raw: Bool = false) async throws -> TextResult {
        try await ai.collect(generateStream(prompt, system: system, options: options, raw: raw))
    }

    /// Streaming `generate`: partial text as it is decoded, then the final result.
    public func generateStream(_ prompt: String, system: String? = nil, options: TextOptions = TextOptions(),
                               raw: Bool = false) -> AsyncThrowingStream<TextEvent, Error> {
        let input: TextInput = raw ? .raw(prompt, parseSpecial: options.parseSpecialTokens) : .user(prompt, system: system)
        return ai.textStream(model: id, adapters: options.adapters) { session, context in
            TextResult(try TextRunner(session: session, context: context, options: options).generate(input, stream: true))
        }
    }

    /// Answers the last message of a conversation (system prompt first, if any).
    public func chat(_ messages: [Message], options: TextOptions = TextOptions()) async throws -> TextResult {
        try await ai.collect(chatStream(messages, options: options))
    }

    /// Streaming `chat`.
    public func chatStream(_ messages: [Message], options: TextOptions = TextOptions()) -> AsyncThrowingStream<TextEvent, Error> {
        chatStream(messages, options: options, readAhead: nil).events
    }

    /// Streaming `chat` whose model decodes at most `readAhead` partial events ahead of the
    /// consumer (nil: no limit), so a consumer that stops reading frees the cores.
    func chatStream(_ messages: [Message], options: TextOptions, readAhead: Int?) -> PacedTextStream {
        ai.pacedTextStream(model: id, adapters: options.adapters, readAhead: readAhead) { session, context in
            guard !messages.isEmpty else { throw OnDeviceError.invalidArgument("chat needs at least one message") }
            let runner = TextRunner(session: session, context: context, options: options)
            return TextResult(try runner.generate(.chat(messages.map(\.chatMessage)), stream: true))
        }
    }

    /// The token ids of `text` on this model (BOS as its metadata says; control-token text is
    /// text unless `parseSpecialTokens`).
    public func tokenize(_ text: String, parseSpecialTokens: Bool = false) async throws -> [Int32] {
        try await ai.withTextSession(model: id) { session in try TextInput.raw(text, parseSpecial: parseSpecialTokens).ids(session.model) }
    }

    /// What the model is: architecture, quantization, size, context and whether it has a chat
    /// template (loads it, like any op).
    public func info() async throws -> TextModelInfo {
        try await ai.withTextSession(model: id) { session in
            let m = session.model
            return TextModelInfo(architecture: m.config.architecture.rawValue, quantization: m.quantization,
                                 weightBytes: m.weightBytes, contextLength: m.config.contextLength,
                                 sessionContextLength: session.contextLength, hasChatTemplate: m.hasChatTemplate)
        }
    }

    /// A conversation with this model that keeps its place (see `ChatSession`).
    public func session(system: String? = nil, options: TextOptions = TextOptions()) -> ChatSession {
        ChatSession(model: self, system: system, options: options)
    }
}

extension OnDeviceAI {
    /// A handle on the text model `id` (a catalog id, a store id or a GGUF path).
    public func textModel(_ id: String) -> TextModel { TextModel(id: id, ai: self) }

    /// The instance's configured text model (`Configuration.textModel`).
    public var textModel: TextModel { textModel(configuration.textModelId(for: .chat)) }
}
