import EngineSupport
import Foundation
import StructuredOutput
import Tokenizers

/// The decode loop: prefill, then sample / evaluate one token at a time until an
/// end-of-generation token, a stop string, `maxTokens`, a full context or cancellation.
package struct Generator {
    package let session: Session
    package let options: GenerationOptions

    package init(session: Session, options: GenerationOptions) {
        self.session = session
        self.options = options
    }

    /// Runs to completion. `onToken` receives each token with the text it makes final;
    /// `isCancelled` is polled before every expensive step. A `constraint` restricts every
    /// token chosen (and ends generation when it is complete). With `options.logprobs` set,
    /// `onLogprob` receives each token's figures just before `onToken` receives the token.
    package func run(prompt: [Int32], constraint: (any TokenConstraint)? = nil, isCancelled: () -> Bool = { false },
                     onToken: (Int32, String) -> Void = { _, _ in },
                     onLogprob: (TokenLogprob) -> Void = { _ in }) throws(EngineError) -> GenerationResult {
        let clock = ContinuousClock()
        let t0 = clock.now
        var metrics = GenerationMetrics()
        metrics.promptTokens = prompt.count
        if isCancelled() { throw .cancelled }
        // Inside the loop, shared steps wait (briefly) for this session's next token.
        let batcher = session.model.batcher
        batcher.enter()
        defer { batcher.leave() }
        try session.setAdapters(options.adapters)
        metrics.reusedPromptTokens = try session.prefill(prompt)
        let tPrompt = clock.now
        metrics.promptSeconds = (tPrompt - t0).seconds

        let tokenizer = session.model.tokenizer
        let eog = tokenizer.endOfGenerationIds
        var sampler = Sampler(options.sampling)
        var detok = StreamingDetokenizer(tokenizer: tokenizer)
        var stop = StopMatcher(stops: options.stop)
        var generated: [Int32] = []
        generated.reserveCapacity(options.maxTokens)
        var text = ""
        var reason = FinishReason.length
        var tFirst = tPrompt
        // Only when asked: off, the loop does no extra work.
        var recorder = options.logprobs.map { LogprobRecorder(k: min($0, GenerationOptions.maxTopLogprobs), vocabularySize: session.vocabularySize) }
        var logprobs: [TokenLogprob]? = recorder == nil ? nil : []

        while generated.count < options.maxTokens {
            if isCancelled() { reason = .cancelled; break }
            let history = session.tokens[...]
            // Before the sampler edits the logits (penalty, end-of-generation ban, grammar mask).
            recorder?.capture(session.logits)
            let id: Int32
            if let constraint {
                let remaining = min(options.maxTokens - generated.count, session.contextLength - session.tokens.count + 1)
                id = try sampler.sample(session.logits, count: session.vocabularySize, history: history,
                                        constraint: constraint, remaining: remaining)
                try constraint.accept(id)
            } else {
                if options.ignoreEndOfGeneration {
                    for e in eog where Int(e) < session.vocabularySize { session.logits[Int(e)] = -.infinity }
                }
                id = sampler.sample(session.logits, count: session.vocabularySize, history: history)
            }
            generated.append(id)
            if generated.count == 1 { tFirst = clock.now }
            if let figures = recorder?.record(id, tokenizer: tokenizer) {
                logprobs?.append(figures)
                onLogprob(figures)
            }
            if eog.contains(id) {
                onToken(id, "")
                reason = .endOfGeneration
                break
            }
            let (emit, stopped) = stop.feed(detok.append(id))
            text += emit
            onToken(id, emit)
            if stopped { reason = .stopSequence; break }
            if constraint?.isComplete == true { reason = .grammarComplete; break }
            if generated.count == options.maxTokens { break }
            if session.tokens.count >= session.contextLength { reason = .contextFull; break }
            if isCancelled() { reason = .cancelled; break }
            try session.evaluate([id][...])
        }
        if reason != .stopSequence {
            let tail = stop.feed(detok.flush()).emit + stop.flush()
            text += tail
            if !tail.isEmpty { onToken(generated.last ?? -1, tail) }
        }
        let tEnd = clock.now
        metrics.completionTokens = generated.count
        metrics.timeToFirstToken = (tFirst - t0).seconds
        metrics.generationSeconds = (tEnd - tFirst).seconds
        metrics.finishReason = reason
        return GenerationResult(promptIds: prompt, generatedIds: generated, text: text, metrics: metrics, logprobs: logprobs)
    }
}

/// Carries a session (and its constraint) into the stream's producer task.
///
/// `@unchecked Sendable`: while the stream is live only the producer touches the session and
/// the constraint; callers must not use them until the stream has finished.
final class SessionBox: @unchecked Sendable {
    let session: Session
    let constraint: (any TokenConstraint)?
    init(_ session: Session, constraint: (any TokenConstraint)? = nil) {
        self.session = session
        self.constraint = constraint
    }
}
