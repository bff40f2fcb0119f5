import Engine
import Tokenizers

extension OnDevice {
    /// Generates a continuation of `prompt`. Chat models answer it as a user turn; `raw`
    /// feeds it to the model as is.
    public func generate(_ prompt: String, options: TextOptions = TextOptions(), raw: Bool = false) async throws -> TextResult {
        try await collect(generateStream(prompt, options: options, raw: raw))
    }

    /// Streaming `generate`: partial text as it is decoded, then the final result.
    public func generateStream(_ prompt: String, options: TextOptions = TextOptions(), raw: Bool = false)
        -> AsyncThrowingStream<TextEvent, Error> {
        textStream(adapters: options.adapters) { session, context in
            let runner = TextRunner(session: session, context: context, options: options)
            let model = session.model
            let ids: [Int32]
            if !raw, let template = try? model.chatTemplate() {
                ids = model.tokenizer.encode(try template.prompt(messages: [ChatMessage(role: .user, content: prompt)], addGenerationPrompt: true))
            } else {
                ids = model.tokenizer.encode(prompt, addBOS: nil, parseSpecial: false)
            }
            var metrics = TextMetrics()
            let r = try runner.generate(ids, stream: true)
            metrics.add(r.metrics, first: true)
            return TextResult(text: r.text, metrics: metrics)
        }
    }

    /// Answers the last message of a conversation (system prompt first, if any).
    public func chat(_ messages: [Message], options: TextOptions = TextOptions()) async throws -> TextResult {
        try await collect(chatStream(messages, options: options))
    }

    /// Streaming `chat`.
    public func chatStream(_ messages: [Message], options: TextOptions = TextOptions()) -> AsyncThrowingStream<TextEvent, Error> {
        chatStream(messages, options: options, readAhead: nil).events
    }

    /// Streaming `chat` whose model decodes at most `readAhead` partial events ahead of the
    /// consumer (nil: no limit), so a consumer that stops reading frees the cores.
    func chatStream(_ messages: [Message], options: TextOptions, readAhead: Int?) -> PacedTextStream {
        let reference = configuration.textModel
        return pacedTextStream(adapters: options.adapters, readAhead: readAhead) { session, context in
            guard let template = try? session.model.chatTemplate() else { throw OnDeviceError.noChatTemplate(model: reference) }
            guard !messages.isEmpty else { throw OnDeviceError.invalidArgument("chat needs at least one message") }
            let ids = session.model.tokenizer.encode(try template.prompt(messages: messages.map(\.chatMessage), addGenerationPrompt: true))
            var metrics = TextMetrics()
            let r = try TextRunner(session: session, context: context, options: options).generate(ids, stream: true)
            metrics.add(r.metrics, first: true)
            return TextResult(text: r.text, metrics: metrics)
        }
    }
}
