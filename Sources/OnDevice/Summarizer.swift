import Foundation
import TextGeneration

/// Map-reduce summarization: text that fits is summarized in one call; longer text is cut into
/// token-bounded chunks on paragraph and sentence boundaries, each chunk is summarized (map),
/// and the joined partial summaries are summarized again (reduce) until one call covers them.
struct Summarizer {
    let runner: TextRunner
    let style: SummaryStyle

    /// Tokens each partial summary may take.
    var partialBudget: Int { min(runner.options.maxTokens, 192) }

    func run(_ text: String) throws -> TextResult {
        var metrics = TextMetrics()
        let model = runner.model
        let recipe = PromptRecipe(system: nil, instruction: style.instruction, input: "", answerLead: "Summary:")
        let room = runner.session.contextLength - TextCore.minimumGenerationRoom - (try recipe.overhead(for: model))
        // Each chunk leaves room for its summary in the same context.
        let chunkTokens = room - partialBudget
        guard chunkTokens >= 64 else {
            throw OnDeviceError.inputTooLong(tokens: try recipe.overhead(for: model) + partialBudget, limit: runner.session.contextLength)
        }
        var current = text
        var round = 0
        while true {
            let count = model.tokenizer.encode(current, addBOS: false, parseSpecial: false).count
            if count <= room - runner.options.maxTokens || count <= chunkTokens {
                var final = recipe
                final.input = current
                let r = try runner.run(final, stream: true)
                metrics.add(r.result.metrics, first: metrics.modelCalls == 0)
                var result = TextResult(r, metrics: metrics)
                result.text = result.text.trimmingCharacters(in: .whitespacesAndNewlines)
                return result
            }
            round += 1
            let chunks = TextChunker(tokenizer: model.tokenizer, maxTokens: chunkTokens).chunks(current)
            var partials: [String] = []
            for (i, chunk) in chunks.enumerated() {
                if runner.context.isCancelled { throw OnDeviceError.cancelled }
                var step = recipe
                step.input = chunk
                var limited = runner.options
                limited.maxTokens = partialBudget
                let r = try TextRunner(session: runner.session, context: runner.context, options: limited).run(step, stream: false)
                metrics.add(r.result.metrics, first: metrics.modelCalls == 0)
                partials.append(r.content.trimmingCharacters(in: .whitespacesAndNewlines))
                runner.context.progress(i + 1, of: chunks.count, "summarizing part \(i + 1) of \(chunks.count) (round \(round))")
            }
            let next = partials.joined(separator: "\n\n")
            // Partial summaries that do not shrink the text would loop forever.
            guard next.count < current.count else {
                throw OnDeviceError.engine("summaries did not get shorter than their input; cannot reduce further")
            }
            current = next
        }
    }
}
