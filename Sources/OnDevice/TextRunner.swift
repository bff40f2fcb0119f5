import Engine
import Tokenizers

/// Runs one model call inside an op: fits the prompt to the context per the overflow policy,
/// decodes with cancellation, and streams partial text.
struct TextRunner {
    let session: Session
    let context: TextOpContext
    let options: TextOptions

    var model: LanguageModel { session.model }

    /// Room left for generation must be at least this many tokens, or the prompt is too long.
    static let minimumGenerationRoom = 16

    /// Generates from prompt ids; partial text is streamed when `stream` is true.
    func generate(_ prompt: [Int32], extraStop: [String] = [], stream: Bool) throws -> GenerationResult {
        var prompt = prompt
        let limit = session.contextLength - Self.minimumGenerationRoom
        if prompt.count > limit {
            switch options.overflow {
            case .refuse: throw OnDeviceError.inputTooLong(tokens: prompt.count, limit: limit)
            case .keepEnd: prompt = Array(prompt.suffix(limit))
            }
        }
        var g = options.generation
        g.stop += extraStop
        g.adapters = context.adapters
        do {
            return try Generator(session: session, options: g).run(
                prompt: prompt, isCancelled: { [context] in context.isCancelled },
                onToken: { _, text in if stream { context.partial(text) } })
        } catch {
            throw OnDeviceError(error)
        }
    }

    /// Runs a task recipe, shortening its input from the front when `.keepEnd` allows it.
    func run(_ recipe: PromptRecipe, stream: Bool) throws -> GenerationResult {
        var (ids, stop) = try recipe.tokens(for: model)
        let limit = session.contextLength - Self.minimumGenerationRoom
        if ids.count > limit {
            guard options.overflow == .keepEnd else { throw OnDeviceError.inputTooLong(tokens: ids.count, limit: limit) }
            var shortened = recipe
            let inputIds = model.tokenizer.encode(recipe.input, addBOS: false, parseSpecial: false)
            let keep = max(0, inputIds.count - (ids.count - limit))
            shortened.input = model.tokenizer.decode(Array(inputIds.suffix(keep)))
            (ids, stop) = try shortened.tokens(for: model)
        }
        return try generate(ids, extraStop: stop, stream: stream)
    }
}
