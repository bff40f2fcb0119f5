import EngineSupport
import Foundation
import Phonemes
import Platform

/// Speech for text that is still being written: a language model's answer is appended as it
/// streams, and each sentence is synthesized as soon as it is closed (`SentenceSplitter`), on a
/// compute thread of its own. Chunks go to `onChunk` on that thread, in order, indexed from 0
/// over the whole text, with sentence `i` seeded `seed &+ i` as `SpeechSynthesizer.run` does.
/// The totals count synthesis time only (`firstChunkSeconds` is the first sentence's), not
/// time spent waiting for text.
///
/// `pacing` says whether the writer goes on while the voice synthesizes. `append` and `finish`
/// suspend (holding no thread) while they must wait.
///
/// Every instance must end with `finish()` then `spoken()`, or `cancel()`: its thread waits
/// for text until then.
package final class IncrementalSpeech: @unchecked Sendable {
    // `@unchecked Sendable`: `state` is only touched under `condition`'s lock; `splitter` only
    // by the (single, sequential) writer through `append`/`finish`, under its own mutex.
    private struct State {
        var queue: [PhonemizedSentence] = []
        /// A sentence the writer could not queue yet (the queue was full) and its writer.
        var blocked: (sentence: PhonemizedSentence, writer: CheckedContinuation<Void, Error>)?
        /// Whether the worker is synthesizing a sentence.
        var busy = false
        /// A writer waiting for the voice to be idle (`Pacing.alternate`).
        var idleWaiter: CheckedContinuation<Void, Error>?
        var textEnded = false
        var cancelled = false
        /// Set when the worker has stopped: its totals, or why it stopped.
        var outcome: Result<SynthesisMetrics, SpeechError>?
        var doneWaiter: CheckedContinuation<SynthesisMetrics, Error>?
    }

    private let condition = NSCondition()
    private var state = State()
    private let splitter: Locked<SentenceSplitter>
    private let synthesizer: SpeechSynthesizer
    private let options: SynthesisOptions
    private let pacing: Pacing
    private let onChunk: @Sendable (SpeechChunk) -> Void
    private let onClosed: @Sendable (PhonemizedSentence) -> Void

    /// How the writer and the voice share the machine.
    package enum Pacing: Sendable, Equatable {
        /// The writer goes on while the voice synthesizes, at most `readAhead` closed sentences
        /// ahead of it: text queued further ahead is not needed soon (a sentence takes seconds
        /// to play).
        case overlap(readAhead: Int)
        /// The writer waits while the voice synthesizes (`append` returns once the sentences it
        /// closed are spoken). For when the two would share cores: a model decoding sentence 2
        /// then only slows the synthesis of sentence 1, which the listener is waiting for, and
        /// sentence 2 is written while sentence 1 plays.
        case alternate
    }

    /// `onClosed` sees each sentence as the text closes it (on the writer's task), before it
    /// is queued.
    package init(synthesizer: SpeechSynthesizer, options: SynthesisOptions, pacing: Pacing = .overlap(readAhead: 1),
                 onClosed: @escaping @Sendable (PhonemizedSentence) -> Void = { _ in },
                 onChunk: @escaping @Sendable (SpeechChunk) -> Void) {
        if case .overlap(let readAhead) = pacing { precondition(readAhead > 0, "the writer must be able to queue a sentence") }
        self.synthesizer = synthesizer
        self.options = options
        self.pacing = pacing
        self.onChunk = onChunk
        self.onClosed = onClosed
        splitter = Locked(SentenceSplitter(phonemizer: synthesizer.phonemizer))
        ComputeThread.start(name: "ondevice.speak-incremental") { [self] in work() }
    }

    /// Appends text; the sentences it closes are queued for synthesis. Returns how many.
    @discardableResult
    package func append(_ text: String) async throws -> Int {
        let sentences = try splitter.withLock { (s: inout SentenceSplitter) throws(SpeechError) in try s.append(text) }
        sentences.forEach(onClosed)
        for sentence in sentences { try await queue(sentence) }
        if pacing == .alternate && !sentences.isEmpty { try await idle() }
        return sentences.count
    }

    /// The text is complete: queues its last sentences. Returns once they are queued (the
    /// voice may still be speaking earlier ones; `spoken()` waits for that). Returns how many.
    @discardableResult
    package func finish() async throws -> Int {
        let sentences = try splitter.withLock { (s: inout SentenceSplitter) throws(SpeechError) in try s.finish() }
        sentences.forEach(onClosed)
        for sentence in sentences { try await queue(sentence) }
        condition.withLock {
            state.textEnded = true
            condition.broadcast()
        }
        return sentences.count
    }

    /// Waits until every queued sentence has been synthesized (or the work stopped); the totals.
    package func spoken() async throws -> SynthesisMetrics {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<SynthesisMetrics, Error>) in
                condition.lock()
                defer { condition.unlock() }
                if let outcome = state.outcome { return done.resume(with: outcome.mapError { $0 as Error }) }
                state.doneWaiter = done
            }
        } onCancel: { cancel() }
    }

    /// Stops before the next sentence (the one being synthesized runs to its end); a waiting
    /// writer throws `SpeechError.cancelled`.
    package func cancel() {
        condition.lock()
        state.cancelled = true
        let blocked = state.blocked
        state.blocked = nil
        let idle = state.idleWaiter
        state.idleWaiter = nil
        condition.broadcast()
        condition.unlock()
        blocked?.writer.resume(throwing: SpeechError.cancelled)
        idle?.resume(throwing: SpeechError.cancelled)
    }

    /// Waits until every queued sentence is spoken.
    private func idle() async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (writer: CheckedContinuation<Void, Error>) in
                condition.lock()
                defer { condition.unlock() }
                if state.cancelled { return writer.resume(throwing: SpeechError.cancelled) }
                if case .failure(let error) = state.outcome { return writer.resume(throwing: error) }
                if state.outcome != nil || (state.queue.isEmpty && !state.busy) { return writer.resume() }
                state.idleWaiter = writer
            }
        } onCancel: { cancel() }
    }

    /// Queues `sentence`, suspending while the pacing leaves no room.
    private func queue(_ sentence: PhonemizedSentence) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (writer: CheckedContinuation<Void, Error>) in
                condition.lock()
                defer { condition.unlock() }
                if state.cancelled { return writer.resume(throwing: SpeechError.cancelled) }
                if case .failure(let error) = state.outcome { return writer.resume(throwing: error) }
                let room = switch pacing {
                case .overlap(let readAhead): state.queue.count < readAhead
                case .alternate: state.queue.isEmpty
                }
                guard !room else {
                    state.queue.append(sentence)
                    condition.broadcast()
                    return writer.resume()
                }
                state.blocked = (sentence, writer)
            }
        } onCancel: { cancel() }
    }

    /// The compute thread: synthesizes queued sentences in order until the text has ended and
    /// the queue is empty, or the work is cancelled or fails.
    private func work() {
        var metrics = SynthesisMetrics()
        var failure: SpeechError?
        var index = 0
        while true {
            condition.lock()
            state.busy = false
            while state.queue.isEmpty && !state.textEnded && !state.cancelled {
                if let idle = state.idleWaiter {
                    state.idleWaiter = nil
                    idle.resume()
                }
                condition.wait()
            }
            if state.cancelled { failure = .cancelled }
            guard failure == nil, !state.queue.isEmpty else {
                condition.unlock()
                break
            }
            let sentence = state.queue.removeFirst()
            state.busy = true
            // Room for the sentence its writer is waiting to queue.
            let blocked = state.blocked
            state.blocked = nil
            if let blocked { state.queue.append(blocked.sentence) }
            condition.unlock()
            blocked?.writer.resume()
            do {
                let chunk = try synthesizer.chunk(sentence, index: index, options: options)
                if index == 0 { metrics.firstChunkSeconds = chunk.computeSeconds }
                metrics.computeSeconds += chunk.computeSeconds
                metrics.sentences += 1
                metrics.phonemeIDs += sentence.ids.count
                metrics.audioSeconds += chunk.audioSeconds
                onChunk(chunk)
            } catch {
                failure = error
                break
            }
            index += 1
        }
        condition.lock()
        let outcome: Result<SynthesisMetrics, SpeechError> = failure.map { .failure($0) } ?? .success(metrics)
        state.outcome = outcome
        let waiter = state.doneWaiter
        state.doneWaiter = nil
        let blocked = state.blocked
        state.blocked = nil
        let idle = state.idleWaiter
        state.idleWaiter = nil
        state.busy = false
        condition.unlock()
        waiter?.resume(with: outcome.mapError { $0 as Error })
        blocked?.writer.resume(throwing: failure ?? .cancelled)
        if let failure { idle?.resume(throwing: failure) } else { idle?.resume() }
    }
}
