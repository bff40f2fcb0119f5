import Runtime
import TextGeneration
import Tokenizers

/// The instance's text ops on its configured text model (`textModel`); `textModel(_:)` gives the
/// same ops on any other.
extension OnDeviceAI {
    /// Generates a continuation of `prompt`. Chat models answer it as a user turn; `raw` feeds
    /// it to the model as is.
    public func generate(_ prompt: String, options: TextOptions = TextOptions(), raw: Bool = false) async throws -> TextResult {
        try await textModel.generate(prompt, options: options, raw: raw)
    }

    /// Streaming `generate`: partial text as it is decoded, then the final result.
    public func generateStream(_ prompt: String, options: TextOptions = TextOptions(), raw: Bool = false)
        -> AsyncThrowingStream<TextEvent, Error> {
        textModel.generateStream(prompt, options: options, raw: raw)
    }

    /// Answers the last message of a conversation (system prompt first, if any).
    public func chat(_ messages: [Message], options: TextOptions = TextOptions()) async throws -> TextResult {
        try await textModel.chat(messages, options: options)
    }

    /// Streaming `chat`.
    public func chatStream(_ messages: [Message], options: TextOptions = TextOptions()) -> AsyncThrowingStream<TextEvent, Error> {
        textModel.chatStream(messages, options: options)
    }

    /// Tokens of context each text session gets: `Configuration.contextLength`, else the
    /// runtime's setting.
    public func textContextLength() async throws -> Int {
        try await textLoadOptions(runtime()).contextLength
    }

    /// Context and threads a text session of this instance gets: `contextLength` and `threads`
    /// when given (a server's own), else `Configuration`'s, else the runtime's settings.
    func textLoadOptions(_ runtime: OnDeviceRuntime, contextLength: Int? = nil, threads: Int? = nil) -> LoadOptions {
        let backend = runtime.textGeneration.backend.options
        return LoadOptions(contextLength: contextLength ?? configuration.contextLength ?? backend.contextLength,
                           threads: threads ?? configuration.threads ?? backend.threads)
    }

    /// Streaming `chat` whose model decodes at most `readAhead` partial events ahead of the
    /// consumer (nil: no limit), so a consumer that stops reading frees the cores.
    func chatStream(_ messages: [Message], options: TextOptions, readAhead: Int?) -> PacedTextStream {
        textModel.chatStream(messages, options: options, readAhead: readAhead)
    }
}
