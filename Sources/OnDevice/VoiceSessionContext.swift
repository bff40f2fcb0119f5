import Foundation
import Platform
import Runtime
import Speech

/// The work of a voice session: the input loop (VAD over the chunks) and each turn's reply.
struct VoiceSessionContext: Sendable {
    let ai: OnDeviceAI
    let chat: OnDeviceAI
    let stt: String
    let tts: String
    let options: VoiceSessionOptions

    /// Speech kept from before the VAD's start mark, so Whisper hears the first syllable whole.
    static let prerollSamples = 4_800

    func drive(input: AsyncStream<[Float]>, core: VoiceSessionCore) async {
        // Loads the language model while the user speaks: left to the first answer, its load
        // would add to the first turn's latency. It stays resident for the runtime's keep-alive.
        let chat = self.chat
        let warmUp = Task { _ = try? await chat.runtime().textGeneration.prepare() }
        let models: VoiceModels
        do { models = try await VoiceModels.lease(ai: ai, stt: stt, tts: tts) } catch {
            core.emit(.error(String(describing: OnDeviceAI.mapped(error))))
            await warmUp.value
            core.close()
            return
        }
        let slot = models.whisper.model.checkOut(threads: ai.modelThreads)
        var vadOptions = VADOptions()
        vadOptions.threshold = options.speechThreshold
        vadOptions.minSilenceDurationMs = options.endOfTurnSilenceMilliseconds
        let detector = models.vad.model.detector(options: vadOptions)
        let vadState = VoiceActivityDetector.StreamState()
        let clock = ContinuousClock()
        // Audio since `bufferStart` (input sample index): the open utterance plus a preroll.
        var buffer: [Float] = []
        var bufferStart = 0
        var fed = 0
        var speechStart: Int?
        // The utterance of the turn being answered, kept until its reply speaks: speech resuming
        // before then continues it.
        var lastUtterance: [Float] = []
        var carried: [Float] = []
        let reply = VoiceReply(context: self, models: models, slot: slot, core: core)

        func endUtterance(at end: Int) {
            guard let start = speechStart else { return }
            speechStart = nil
            let from = max(0, start - Self.prerollSamples - bufferStart), to = min(buffer.count, max(from, end - bufferStart))
            let utterance = carried + buffer[from..<to]
            carried = []
            lastUtterance = utterance
            let endedAt = clock.now
            core.speechEnded { turn in Task.detached { await reply.run(turn: turn, utterance: utterance, speechEndedAt: endedAt) } }
        }

        core.emit(.listening)
        for await chunk in input {
            if Task.isCancelled || core.isClosed { break }
            buffer += chunk
            fed += chunk.count
            core.advanceInput(to: Double(fed) / 16_000)
            for event in detector.process(chunk, state: vadState) {
                switch event {
                case .speechStarted(let at):
                    switch core.speechStarted() {
                    case .ignored: continue
                    case .continued: carried = lastUtterance
                    case .fresh, .bargeIn: carried = []
                    }
                    speechStart = Int(at * 16_000)
                case .speechEnded(let at):
                    endUtterance(at: Int(at * 16_000))
                case .activity:
                    break
                }
            }
            if speechStart == nil, buffer.count > 2 * Self.prerollSamples {
                // Between utterances keep only the preroll.
                let drop = buffer.count - Self.prerollSamples
                buffer.removeFirst(drop)
                bufferStart += drop
            }
        }
        if !core.isClosed && !Task.isCancelled {
            endUtterance(at: fed)
            core.inputEnded()
            await core.pendingReply?.value
            core.inputEnded()
        }
        // A reply cut short by `close()` stops its model and voice before it returns: wait, so
        // the models are not given back under a sentence still being synthesized.
        await core.pendingReply?.value
        models.whisperGate.withLock { _ in models.whisper.model.checkIn(slot) }  // after any transcription still running
        await warmUp.value  // its lease is back before the session ends
        await models.release()
        core.close()
    }
}

/// The models a session holds.
struct VoiceModels: Sendable {
    let vad: EngineLease<ResidentVoiceActivityModel>
    let whisper: EngineLease<ResidentWhisperModel>
    let voice: EngineLease<ResidentPiperVoice>
    /// Serializes use of the session's one Whisper transcriber.
    let whisperGate = WhisperGate()

    static func lease(ai: OnDeviceAI, stt: String, tts: String) async throws -> VoiceModels {
        let vad = try await ai.leaseModel(ResidentVoiceActivityModel.self, ai.configuration.voiceActivityModel)
        do {
            let whisper = try await ai.leaseModel(ResidentWhisperModel.self, stt)
            do {
                return VoiceModels(vad: vad, whisper: whisper, voice: try await ai.leaseModel(ResidentPiperVoice.self, tts))
            } catch {
                await whisper.release()
                throw error
            }
        } catch {
            await vad.release()
            throw error
        }
    }

    func release() async {
        await vad.release()
        await whisper.release()
        await voice.release()
    }
}

/// A lock around a session's transcriber.
final class WhisperGate: Sendable {
    private let mutex = Locked(())

    func withLock<T>(_ body: (inout ()) throws -> T) rethrows -> T {
        try mutex.withLock { (value: inout ()) throws -> T in try body(&value) }
    }
}
