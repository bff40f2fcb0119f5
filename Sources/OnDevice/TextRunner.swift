import StructuredOutput
import TextGeneration
import Tokenizers

/// Runs one model call of an op through the text core: the op's options and adapters applied,
/// its overflow policy, cancellation polled every token, partial text streamed, and the call's
/// metrics reported to the runtime.
struct TextRunner {
    let session: Session
    let context: TextOpContext
    let options: TextOptions

    var model: LanguageModel { session.model }

    /// Plans and runs `job` with the op's options; partial text is streamed when `stream` is true.
    func run(_ job: TextJob, stream: Bool) throws -> TextOutcome {
        try TextOptions.checkLogprobs(job.options.logprobs)
        var job = job
        job.overflow = options.overflow == .keepEnd ? .keepEnd : .refuse
        job.options.adapters = context.adapters
        do throws(EngineError) {
            let plan = try TextCore.plan(job, model: model, contextLength: session.contextLength)
            let outcome = try TextCore.run(plan, on: session, isCancelled: { [context] in context.isCancelled },
                                           onText: { if stream { context.partial($0) } })
            context.report(outcome.result.metrics)
            return outcome
        } catch .noChatTemplate {
            throw OnDeviceError.noChatTemplate(model: context.model)
        } catch {
            throw OnDeviceError(error)
        }
    }

    /// Generates a reply to `input` with the op's options and `extraStop` strings.
    func generate(_ input: TextInput, output: TextOutput = .text, extraStop: [String] = [], stream: Bool) throws -> TextOutcome {
        var options = self.options.generation
        options.stop += extraStop
        return try run(TextJob(input, output: output, options: options), stream: stream)
    }

    /// Runs a task recipe, shortening its input from the front when `.keepEnd` allows it.
    func run(_ recipe: PromptRecipe, stream: Bool) throws -> TextOutcome {
        let limit = session.contextLength - min(TextCore.minimumGenerationRoom, max(1, options.maxTokens))
        var recipe = recipe
        let ids = try recipe.input(for: model).input.ids(model)
        if ids.count > limit {
            guard options.overflow == .keepEnd else { throw OnDeviceError.inputTooLong(tokens: ids.count, limit: limit) }
            let inputIds = model.tokenizer.encode(recipe.input, addBOS: false, parseSpecial: false)
            let keep = max(0, inputIds.count - (ids.count - limit))
            recipe.input = model.tokenizer.decode(Array(inputIds.suffix(keep)))
        }
        let (input, stop) = recipe.input(for: model)
        return try generate(input, extraStop: stop, stream: stream)
    }
}

extension TextInput {
    /// The input's prompt ids on `model`, as the core renders them.
    func ids(_ model: LanguageModel) throws -> [Int32] {
        do { return try TextCore.promptIds(TextJob(self), model: model) } catch { throw OnDeviceError(error) }
    }
}
