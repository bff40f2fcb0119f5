import Platform

/// The turn state of a voice session, shared by its input driver and its reply task. Every
/// transition and the events it emits happen under one lock, so the event order is the order
/// of the transitions, whichever thread makes them.
///
/// Time is the input's clock (seconds of audio fed), not the wall clock: the reply "plays"
/// from the input time its first chunk was ready for as long as its audio lasts, so speech fed
/// in that window is a barge-in however fast the input arrives (a recorded file or a live
/// microphone alike).
final class VoiceSessionCore: Sendable {
    enum Phase: Equatable { case listening, userSpeaking, replying(turn: Int), closed }

    struct State {
        var phase = Phase.listening
        /// Incremented by every new or abandoned turn; a reply emits only while its turn is current.
        var turn = 0
        var reply: Task<Void, Never>?
        var replyDone = false
        var metrics = VoiceTurnMetrics()
        /// Input time at which the reply's audio, played from its first chunk, ends.
        var playedUntil: Double?
        var inputSeconds = 0.0
        var inputEnded = false
        var turns: [VoiceTurnMetrics] = []
        var history: [Message] = []
    }

    private let state = Locked(State())
    private let continuation: AsyncStream<VoiceEvent>.Continuation
    let bargeIn: Bool

    init(continuation: AsyncStream<VoiceEvent>.Continuation, bargeIn: Bool) {
        self.continuation = continuation
        self.bargeIn = bargeIn
    }

    var turns: [VoiceTurnMetrics] { state.withLock { $0.turns } }
    var history: [Message] { state.withLock { $0.history } }
    var isClosed: Bool { state.withLock { $0.phase == .closed } }
    var pendingReply: Task<Void, Never>? { state.withLock { $0.reply } }

    func emit(_ event: VoiceEvent) {
        state.withLock { s in if s.phase != .closed { continuation.yield(event) } }
    }

    /// What new speech did to the turn in progress.
    enum SpeechStart: Equatable {
        /// A new utterance while listening.
        case fresh
        /// The reply had not started speaking: the user was not done, so the pending reply is
        /// dropped and the new speech continues the previous utterance.
        case continued
        /// The reply was speaking and stopped (barge-in); the session listens to the new utterance.
        case bargeIn
        /// Barge-in is off and the reply is speaking: the speech is ignored.
        case ignored
    }

    /// Voice activity began.
    func speechStarted() -> SpeechStart {
        state.withLock { s in
            guard s.phase != .closed else { return .ignored }
            var start = SpeechStart.fresh
            if case .replying = s.phase {
                if s.playedUntil == nil && !s.replyDone {
                    s.reply?.cancel()
                    s.turn += 1
                    s.reply = nil
                    start = .continued
                } else {
                    guard bargeIn else { return .ignored }
                    stopReply(&s)
                    continuation.yield(.listening)
                    start = .bargeIn
                }
            }
            s.phase = .userSpeaking
            continuation.yield(.speechStarted)
            return start
        }
    }

    /// The user's turn ended; `start` begins answering it (called with the new turn's number).
    func speechEnded(_ start: (Int) -> Task<Void, Never>) {
        state.withLock { s in
            guard s.phase == .userSpeaking else { return }
            continuation.yield(.speechEnded)
            s.turn += 1
            s.phase = .replying(turn: s.turn)
            s.replyDone = false
            s.playedUntil = nil
            s.metrics = VoiceTurnMetrics()
            s.reply = start(s.turn)
        }
    }

    /// Emits `event` for `turn` if that turn is still the one being answered.
    func emit(_ event: VoiceEvent, turn: Int, update: (inout VoiceTurnMetrics) -> Void = { _ in }) {
        state.withLock { s in
            guard s.phase == .replying(turn: turn) else { return }
            update(&s.metrics)
            continuation.yield(event)
        }
    }

    /// Updates the metrics of `turn` if that turn is still the one being answered.
    func record(turn: Int, _ update: (inout VoiceTurnMetrics) -> Void) {
        state.withLock { s in
            if s.phase == .replying(turn: turn) { update(&s.metrics) }
        }
    }

    /// A sentence of the reply is ready; it plays after what was already queued.
    func speak(_ chunk: SpeechAudioChunk, turn: Int, update: (inout VoiceTurnMetrics) -> Void) {
        state.withLock { s in
            guard s.phase == .replying(turn: turn) else { return }
            update(&s.metrics)
            s.metrics.replySeconds += chunk.duration
            s.playedUntil = (s.playedUntil ?? s.inputSeconds) + chunk.duration
            continuation.yield(.speaking(chunk))
        }
    }

    /// The reply was produced whole.
    func replyFinished(turn: Int, user: String, answer: String) {
        state.withLock { s in
            guard s.phase == .replying(turn: turn) else { return }
            s.replyDone = true
            s.turns.append(s.metrics)
            s.history += [Message(role: .user, content: user), Message(role: .assistant, content: answer)]
            continuation.yield(.turnCompleted(s.metrics))
            settle(&s)
        }
    }

    /// The turn gave nothing to answer (no words) or failed: back to listening.
    func replyAbandoned(turn: Int, error: String?) {
        state.withLock { s in
            guard s.phase == .replying(turn: turn) else { return }
            if let error { continuation.yield(.error(error)) }
            s.reply = nil
            s.phase = .listening
            continuation.yield(.listening)
        }
    }

    /// `seconds` of input have been fed.
    func advanceInput(to seconds: Double) {
        state.withLock { s in
            s.inputSeconds = seconds
            settle(&s)
        }
    }

    /// No more input will come: nothing can barge in, so a finished reply has played out.
    func inputEnded() {
        state.withLock { s in
            s.inputEnded = true
            settle(&s)
        }
    }

    /// Stops the reply (if any) and returns to listening.
    func interrupt() {
        state.withLock { s in
            guard case .replying = s.phase else { return }
            stopReply(&s)
            s.phase = .listening
            continuation.yield(.listening)
        }
    }

    /// Stops everything and ends the event stream.
    func close() {
        state.withLock { s in
            guard s.phase != .closed else { return }
            if case .replying = s.phase, !s.replyDone { s.reply?.cancel() }
            s.phase = .closed
            continuation.finish()
        }
    }

    private func stopReply(_ s: inout State) {
        if !s.replyDone {
            s.reply?.cancel()
            s.metrics.interrupted = true
            s.turns.append(s.metrics)
        } else if let end = s.playedUntil, s.inputSeconds < end {
            s.turns[s.turns.count - 1].interrupted = true
        }
        s.turn += 1
        s.reply = nil
    }

    /// A finished reply whose audio has played out (or whose input ended) returns to listening.
    private func settle(_ s: inout State) {
        guard case .replying = s.phase, s.replyDone, s.inputEnded || s.inputSeconds >= (s.playedUntil ?? 0) else { return }
        s.reply = nil
        s.phase = .listening
        continuation.yield(.listening)
    }
}
