import EngineSupport
import Foundation
import Kernels
import Models

/// Continuous batching for one model: the forward passes that sessions of the model ask for at
/// about the same time run as one pass. Decoding one token of a small model is bound by reading
/// the weights; in a shared step every matrix product reads each weight once for all of the
/// sequences, and each row attends over its own sequence's cache.
///
/// Nothing above the session changes: every request still runs its own `Generator` (its own
/// sampler, grammar constraint, stop strings, logprobs and cancellation) on its own thread,
/// and `Session.evaluate` hands its tokens here and waits for them to be evaluated.
///
/// A step is run by one of the waiting threads (the leader) as soon as every session inside a
/// generation (`enter`/`leave`) has asked, or `gatherWindow` after the oldest request (or after
/// the last step ended, for requests that arrived during it), so a
/// session that is slow to ask (a grammar mask, a slow reader) delays the others by at most the
/// window. A step takes each request's next token first, then waiting prompts in arrival order,
/// at most `prefillChunk` tokens of each while any sequence is decoding (chunked prefill: a long
/// prompt never stalls the others for more than one chunk), and up to the scratch's batch size.
/// Sessions must share their context length and LoRA adapters to share a step; requests that
/// differ are grouped, the oldest request's group first, one step at a time.
package final class DecodeBatcher: @unchecked Sendable {
    // `@unchecked Sendable`: every field below is touched only under `condition`'s lock; a
    // step's sessions are touched only by the leader while their owners wait for it.
    private let condition = NSCondition()
    private var active = 0
    private var queue: [Request] = []
    private var stepping = false
    /// When the last step ended: requests that arrived during a step wait the window from here,
    /// so the sequences that step served can ask again and join the next one.
    private var lastStepEnd = ContinuousClock.now
    private var counters = Counters()

    /// Whether passes are batched at all; off, each session runs its own passes (as before
    /// batching, for comparison).
    package var isEnabled: Bool {
        get { condition.withLock { enabled } }
        set { condition.withLock { enabled = newValue } }
    }
    private var enabled = true

    /// How long a step waits for sessions that are inside a generation but have not asked yet.
    package var gatherWindow: Duration {
        get { condition.withLock { window } }
        set { condition.withLock { window = newValue } }
    }
    private var window: Duration = .milliseconds(2)

    /// Prompt tokens of one request a step takes while other sequences are decoding.
    package var prefillChunk: Int {
        get { condition.withLock { chunk } }
        set { condition.withLock { chunk = max(1, newValue) } }
    }
    private var chunk = 64

    package init() {}

    /// What the batcher has done since it was made, for `/metrics`.
    package struct Counters: Sendable, Equatable {
        /// Forward passes run.
        package var steps = 0
        /// Rows (tokens) evaluated, and how many of them were decoded tokens (requests of one token).
        package var rows = 0
        package var decodeRows = 0
        /// Sequences per step, summed (mean batch size = sequences / steps).
        package var sequences = 0
        /// Steps by how many sequences they served: [1, 2, 3–4, 5–8, 9–16, 17+].
        package var batchSizes = [Int](repeating: 0, count: DecodeBatcher.batchSizeBounds.count + 1)
        /// The most sequences one step served.
        package var largestBatch = 0
        /// Seconds spent in the steps' forward passes.
        package var busySeconds = 0.0
    }

    /// Upper bounds of the batch-size buckets in `Counters.batchSizes` (the last bucket is open).
    package static let batchSizeBounds = [1, 2, 4, 8, 16]

    /// A snapshot of the counters, plus what is happening now.
    package var snapshot: (counters: Counters, active: Int, waiting: Int) {
        condition.withLock { (counters, active, queue.count) }
    }

    /// A session starts a generation: steps wait (up to the window) for its requests.
    package func enter() { condition.withLock { active += 1 } }

    /// The generation ended: steps no longer wait for it.
    package func leave() {
        condition.lock()
        active -= 1
        condition.broadcast()
        condition.unlock()
    }

    private final class Request {
        let state: DecoderState
        let model: any DecoderModel
        var tokens: ArraySlice<Int32>
        let arrived: ContinuousClock.Instant
        var done = false
        init(state: DecoderState, model: any DecoderModel, tokens: ArraySlice<Int32>) {
            self.state = state
            self.model = model
            self.tokens = tokens
            self.arrived = .now
        }
    }

    /// One pass: its requests, with how many of each one's tokens it takes.
    private struct Step {
        var parts: [(request: Request, count: Int)] = []
    }

    /// Evaluates `tokens` on `state`'s sequence, in one or more shared steps, and returns once
    /// all of them are in its cache and its logits are those of the last. The caller has checked
    /// them (context, vocabulary); the caller's thread may run other sessions' steps meanwhile.
    package func evaluate(_ tokens: ArraySlice<Int32>, state: DecoderState, model: any DecoderModel) {
        precondition(!tokens.isEmpty, "a pass needs at least one token")
        condition.lock()
        guard enabled else {
            condition.unlock()
            forwardAlone(tokens, state: state, model: model)
            return
        }
        let request = Request(state: state, model: model, tokens: tokens)
        queue.append(request)
        condition.broadcast()  // a waiting leader may now have everyone
        while !request.done {
            if !stepping, let step = readyStep() {
                stepping = true
                condition.unlock()
                let started = ContinuousClock.now
                run(step)
                let busy = (ContinuousClock.now - started).seconds
                condition.lock()
                stepping = false
                lastStepEnd = .now
                counters.busySeconds += busy
                finish(step)
                condition.broadcast()
            } else if stepping || queue.isEmpty {
                condition.wait()
            } else {
                let deadline = max(queue[0].arrived, lastStepEnd) + window
                let seconds = (deadline - .now).seconds
                if seconds > 0 { _ = condition.wait(until: Date(timeIntervalSinceNow: seconds)) }
            }
        }
        condition.unlock()
    }

    /// The next step, if it should start now: every active session has asked, or the oldest
    /// request has waited the window. Called under the lock.
    private func readyStep() -> Step? {
        guard let oldest = queue.first else { return nil }
        guard queue.count >= active || ContinuousClock.now >= max(oldest.arrived, lastStepEnd) + window else { return nil }
        let scratch = oldest.state
        let group = queue.filter { $0.state.contextLength == scratch.contextLength && $0.state.adapters == scratch.adapters }
        var step = Step()
        var room = scratch.maxBatch
        let decoding = group.filter { $0.tokens.count == 1 }
        for request in decoding where room > 0 {
            step.parts.append((request, 1))
            room -= 1
        }
        let limit = decoding.isEmpty ? scratch.maxBatch : chunk
        for request in group where request.tokens.count > 1 && room > 0 {
            let take = min(request.tokens.count, limit, room)
            step.parts.append((request, take))
            room -= take
        }
        // The oldest request's state lends the scratch, so put it first (`run` uses parts[0]).
        if let index = step.parts.firstIndex(where: { $0.request === oldest }), index > 0 { step.parts.swapAt(0, index) }
        return step
    }

    /// Runs a step's pass. Called without the lock; only the leader touches these states now.
    private func run(_ step: Step) {
        var rows = DecoderRows()
        var tokens: [Int32] = []
        tokens.reserveCapacity(step.parts.reduce(0) { $0 + $1.count })
        for (request, count) in step.parts {
            rows.append(request.state, count: count)
            tokens.append(contentsOf: request.tokens.prefix(count))
        }
        let scratch = step.parts[0].request.state
        // A step keeps to the matrix-vector kernels up to the row count where the GEMM starts to
        // win, which the kernel tier gives per weight type (MatMul): the rest of a prompt the
        // cache did not hold, or a prompt chunk joining decoding rows, is most of a request's
        // time to first token, and is mostly a few tokens.
        scratch.matmul.gemmFromRows = max(MatMul.gemmMinTokens, MatMul.decodeStepMatrixVectorRows)
        defer { scratch.matmul.gemmFromRows = MatMul.gemmMinTokens }
        tokens.withUnsafeBufferPointer { step.parts[0].request.model.forward($0, rows: rows, scratch: scratch, allLogits: nil) }
    }

    /// Records a finished step: each request moves past what the step took, and leaves the
    /// queue when nothing is left. Called under the lock.
    private func finish(_ step: Step) {
        var sequences = 0
        for (request, count) in step.parts {
            request.tokens = request.tokens.dropFirst(count)
            counters.rows += count
            if count == 1 && request.tokens.isEmpty { counters.decodeRows += 1 }
            sequences += 1
            if request.tokens.isEmpty {
                request.done = true
                queue.removeAll { $0 === request }
            }
        }
        counters.steps += 1
        counters.sequences += sequences
        counters.largestBatch = max(counters.largestBatch, sequences)
        let bucket = Self.batchSizeBounds.firstIndex { sequences <= $0 } ?? Self.batchSizeBounds.count
        counters.batchSizes[bucket] += 1
    }

    private func forwardAlone(_ tokens: ArraySlice<Int32>, state: DecoderState, model: any DecoderModel) {
        tokens.withUnsafeBufferPointer { model.forward($0, state: state, allLogits: nil) }
    }
}
