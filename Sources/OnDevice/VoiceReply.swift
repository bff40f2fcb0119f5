import Audio
import EngineSupport
import Foundation
import Runtime
import Speech
import Synchronization

/// One turn's answer: transcribe the utterance, then ask the language model and speak its
/// answer as it comes — each sentence is synthesized as soon as the model has written it
/// (`IncrementalSpeech`), while the model writes the next or, when they would share cores,
/// in turns with it. Emits through the core only while its turn is current, and once
/// cancelled (barge-in, `interrupt()`, `close()`) stops the generation and the synthesis both.
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
            let answer = try await answerAloud(heard, turn: turn, speechEndedAt: speechEndedAt)
            try Task.checkCancellation()
            core.replyFinished(turn: turn, user: heard, answer: answer)
        } catch {
            if Task.isCancelled { return }
            core.replyAbandoned(turn: turn, error: String(describing: OnDeviceAI.mapped(error)))
        }
    }

    /// Streams the model's answer into the voice; returns the whole answer once it is spoken.
    /// `agentResponse` is emitted when the model has finished (its first sentences may already
    /// be speaking). Whatever ends the turn early stops the model and the voice before this
    /// returns, so the session never gives the voice back while a sentence is synthesizing.
    private func answerAloud(_ heard: String, turn: Int, speechEndedAt: ContinuousClock.Instant) async throws -> String {
        let clock = ContinuousClock()
        let thinking = clock.now
        let core = self.core
        let firstClosed = Atomic<Bool>(false)
        let speech = IncrementalSpeech(synthesizer: models.voice.model.synthesizer,
                                       options: context.ai.synthesisOptions(context.options.speech), pacing: pacing,
                                       onClosed: { _ in
                                           guard !firstClosed.exchange(true, ordering: .relaxed) else { return }
                                           let seconds = (clock.now - thinking).seconds
                                           core.record(turn: turn) { $0.firstSentenceSeconds = seconds }
                                       }) { chunk in
            guard case .audio(let audio) = OnDeviceAI.publicEvent(.chunk(chunk)) else { return }
            let now = clock.now
            core.speak(audio, turn: turn) { m in
                if chunk.index == 0 { m.firstAudioLatency = (now - speechEndedAt).seconds }
            }
        }
        let messages = [Message(role: .system, content: context.options.instructions)] + core.history
            + [Message(role: .user, content: heard)]
        // A small read-ahead: while the writer waits for the voice, the model stops within a
        // token or two instead of decoding on against the synthesis.
        let stream = context.chat.chatStream(messages, options: context.options.text, readAhead: 2)
        let generation = Task { try await Self.write(stream, into: speech) }
        do {
            let answer = try await withTaskCancellationHandler { try await generation.value } onCancel: { generation.cancel() }
            core.emit(.agentResponse(answer), turn: turn) { $0.thinkSeconds = (clock.now - thinking).seconds }
            _ = try await speech.spoken()
            return answer
        } catch {
            generation.cancel()
            speech.cancel()
            _ = try? await speech.spoken()  // the sentence being synthesized runs to its end
            throw error
        }
    }

    /// Feeds the model's text to the voice as it arrives; the whole answer, trimmed, once the
    /// model has finished and its last sentences are queued.
    private static func write(_ stream: PacedTextStream, into speech: IncrementalSpeech) async throws -> String {
        var events = stream.events.makeAsyncIterator()
        var answer: String?
        do {
            while let event = try await events.next() {
                switch event {
                case .partial(let text):
                    try await speech.append(text)
                case .finished(let result):
                    answer = result.text.trimmingCharacters(in: .whitespacesAndNewlines)
                case .progress:
                    break
                }
            }
            try Task.checkCancellation()
            guard let answer else { throw OnDeviceError.cancelled }
            try await speech.finish()
            return answer
        } catch {
            stream.cancel()  // leaving before the stream's end: the model stops at its next token
            throw error
        }
    }

    /// Whether the model writes on while the voice synthesizes. Both run their kernels on
    /// `threads` threads; when together they want more threads than there are cores they take
    /// turns, since sharing only slows the synthesis the listener waits for (measured on two
    /// cores: sentence 1 took ~1.05 s against the decoding model, ~0.65 s alone).
    private var pacing: IncrementalSpeech.Pacing {
        let wanted = context.chat.modelThreads + context.ai.modelThreads
        return wanted > ProcessInfo.processInfo.activeProcessorCount ? .alternate : .overlap(readAhead: 1)
    }

    /// Whisper on a compute thread (a transcription holds a core for up to a second).
    private func transcribe(_ utterance: [Float]) async throws -> String {
        var whisperOptions = TranscriptionOptions(language: context.options.language, beamSize: 1)
        whisperOptions.temperatures = [0]
        let options = whisperOptions
        let slot = self.slot  // the slot (Sendable) carries the transcriber this session owns
        let models = self.models
        return try await ComputeThread.run(name: "ondevice.voice.transcribe") { cancelled in
            // A cancelled turn's transcription may still be finishing its current step when the
            // next turn starts: one session transcriber, one user at a time.
            let clip = AudioClip(samples: utterance, sampleRate: 16_000)
            let result = try models.whisperGate.withLock { _ in
                try slot.transcriber.transcribe(clip, options: options, isCancelled: { cancelled.isCancelled })
            }
            return result.text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}

