import Audio
import Engine
import Foundation
import Runtime

/// One turn's answer: transcribe the utterance, ask the language model, speak the answer
/// sentence by sentence. Emits through the core only while its turn is current, and stops at
/// the next step once cancelled (barge-in, `interrupt()`, `close()`).
struct VoiceReply: Sendable {
    let context: VoiceSessionContext
    let models: VoiceModels
    let slot: TranscriberSlot
    let core: VoiceSessionCore

    func run(turn: Int, utterance: [Float], speechEndedAt: ContinuousClock.Instant) async {
        let clock = ContinuousClock()
        do {
            let t0 = clock.now
            let heard = try await transcribe(utterance)
            let t1 = clock.now
            try Task.checkCancellation()
            guard !heard.isEmpty else { return core.replyAbandoned(turn: turn, error: nil) }
            core.emit(.userTranscribed(heard), turn: turn) { m in
                m.speechSeconds = Double(utterance.count) / 16_000
                m.transcribeSeconds = (t1 - t0).seconds
            }
            core.emit(.thinking, turn: turn)
            let messages = [Message(role: .system, content: context.options.instructions)] + core.history
                + [Message(role: .user, content: heard)]
            let answer = try await context.chat.chat(messages, options: context.options.text).text
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let t2 = clock.now
            try Task.checkCancellation()
            core.emit(.agentResponse(answer), turn: turn) { $0.thinkSeconds = (t2 - t1).seconds }
            var first = true
            let engineOptions = context.ai.synthesisOptions(context.options.speech)
            for try await event in models.voice.model.synthesizer.stream(answer, options: engineOptions) {
                try Task.checkCancellation()
                guard case .chunk = event else { continue }
                guard case .audio(let chunk) = OnDevice.publicEvent(event) else { continue }
                let now = clock.now
                core.speak(chunk, turn: turn) { m in
                    if first { m.firstAudioLatency = (now - speechEndedAt).seconds }
                }
                first = false
            }
            try Task.checkCancellation()
            core.replyFinished(turn: turn, user: heard, answer: answer)
        } catch {
            if Task.isCancelled { return }
            core.replyAbandoned(turn: turn, error: String(describing: OnDevice.mapped(error)))
        }
    }

    /// Whisper on a compute thread (a transcription holds a core for up to a second).
    private func transcribe(_ utterance: [Float]) async throws -> String {
        var whisperOptions = TranscriptionOptions(language: context.options.language, beamSize: 1)
        whisperOptions.temperatures = [0]
        let options = whisperOptions
        let slot = self.slot  // the slot (Sendable) carries the transcriber this session owns
        let models = self.models
        let cancelled = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (done: CheckedContinuation<String, Error>) in
                ComputeThread.start(name: "ondevice.voice.transcribe") {
                    // A cancelled turn's transcription may still be finishing its current step
                    // when the next turn starts: one session transcriber, one user at a time.
                    do {
                        let clip = AudioClip(samples: utterance, sampleRate: 16_000)
                        let result = try models.whisperGate.withLock { _ in
                            try slot.transcriber.transcribe(clip, options: options, isCancelled: { cancelled.isCancelled })
                        }
                        done.resume(returning: result.text.trimmingCharacters(in: .whitespacesAndNewlines))
                    } catch {
                        done.resume(throwing: error)
                    }
                }
            }
        } onCancel: {
            cancelled.cancel()
        }
    }
}

