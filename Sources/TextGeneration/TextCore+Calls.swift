import StructuredOutput
import Tokenizers
import Tools

/// Several calls in one reply (OpenAI's parallel tool calls), as Hermes-style models write them:
/// `<tool_call>{…}</tool_call>` after `<tool_call>{…}</tool_call>`, then the end of the turn.
///
/// The call grammar ends after one object, so the core writes the closing tag and the newline
/// itself, then lets the model choose between ending the turn and opening another call: the
/// next token is drawn (with the job's sampling) among only the end-of-generation tokens and the
/// tokens that begin `<tool_call>`. Another call is written under the same call grammar as the
/// first; nothing but calls can follow a call.
extension TextCore {
    static func furtherCalls(after first: GenerationResult, plan: TextPlan, session: Session,
                             isCancelled: () -> Bool) throws(EngineError) -> GenerationResult {
        var result = first
        let tokenizer = session.model.tokenizer
        let between = ToolRegistry.callClose + "\n"
        // Our own markers: tokenized with their special tokens, as the template's are.
        let close = tokenizer.encode("\n" + between, addBOS: false, parseSpecial: true)
        var made = 1
        while made < plan.maxCalls, result.metrics.finishReason == .grammarComplete {
            if isCancelled() {
                result.metrics.finishReason = .cancelled
                break
            }
            let prompt = plan.prompt + result.generatedIds + close
            let remaining = min(plan.options.maxTokens - result.generatedIds.count - close.count, session.contextLength - prompt.count)
            guard remaining > 0 else { break }
            // Each further call samples with a seed of its own, drawn from the job's.
            var options = plan.options
            options.sampling = plan.options.sampling.choice(made)
            options.maxTokens = remaining
            try session.prefill(prompt)
            var sampler = Sampler(options.sampling)
            guard opensAnotherCall(session, sampler: &sampler) else { break }
            let grammar = try Grammar(schema: plan.callTools.callSchema, prefix: .literal(ToolRegistry.callOpen), options: plan.grammarOptions)
            let call = GrammarConstraint(grammar: grammar, tokenizer: tokenizer)
            guard call.minimumBytesToFinish <= remaining else { break }
            let next: GenerationResult
            do {
                next = try Generator(session: session, options: options).run(prompt: prompt, constraint: call, isCancelled: isCancelled)
            } catch .cancelled {
                result.metrics.finishReason = .cancelled  // as a cancelled generation reports it
                break
            }
            result.text += "\n" + between + next.text
            result.generatedIds += close + next.generatedIds
            result.metrics.completionTokens += close.count + next.metrics.completionTokens
            result.metrics.generationSeconds += next.metrics.promptSeconds + next.metrics.generationSeconds
            result.metrics.finishReason = next.metrics.finishReason
            // The joined ids include the tags written here, which have no figures.
            result.logprobs = nil
            made += 1
        }
        return result
    }

    /// Draws the token after a call among the end-of-generation tokens and the tokens that begin
    /// a call's opening tag; true when it opens another call. Edits the session's logits.
    static func opensAnotherCall(_ session: Session, sampler: inout Sampler) -> Bool {
        let tokenizer = session.model.tokenizer
        let open = Array(ToolRegistry.callOpen.utf8)
        let logits = session.logits
        for id in 0..<session.vocabularySize where !tokenizer.isEndOfGeneration(Int32(id)) {
            let piece = tokenizer.pieceBytes(Int32(id))
            if piece.isEmpty || piece.count > open.count || !open.starts(with: piece) { logits[id] = -.infinity }
        }
        let id = sampler.sample(logits, count: session.vocabularySize, history: session.tokens[...])
        return !tokenizer.isEndOfGeneration(id)
    }
}
