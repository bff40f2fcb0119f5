import Audio
import Foundation
import Runtime

/// A spoken conversation: speech in, spoken answers out (VAD → Whisper → language model →
/// Piper). Made by `OnDeviceAI.createVoiceSession`; read `events` until it ends.
///
/// The session holds the VAD, Whisper and voice models for its whole life (the language model
/// is leased per answer by the chat op). It ends when the input ends and the last answer is
/// spoken, or at `close()`.
public final class VoiceSession: Sendable {
    /// Everything the session does, in order. Ends when the session does.
    public let events: AsyncStream<VoiceEvent>
    let core: VoiceSessionCore
    private let driver: Task<Void, Never>

    init(input: AsyncStream<[Float]>, context: VoiceSessionContext) {
        let (events, continuation) = AsyncStream<VoiceEvent>.makeStream()
        let core = VoiceSessionCore(continuation: continuation, bargeIn: context.options.bargeIn)
        self.events = events
        self.core = core
        driver = Task.detached { await context.drive(input: input, core: core) }
    }

    /// Stops the agent's reply (synthesis and whatever was not yet played) and listens again.
    public func interrupt() { core.interrupt() }

    /// Ends the session: stops the reply, stops reading input, releases the models.
    public func close() {
        core.close()
        driver.cancel()
    }

    /// Metrics of every turn so far (interrupted ones included).
    public var turns: [VoiceTurnMetrics] { core.turns }

    /// The conversation so far (user and assistant messages of completed turns).
    public var history: [Message] { core.history }

    /// A recorded file as the input of a session or a live transcription: 16 kHz mono chunks of
    /// `milliseconds`, all at once, or with `realTime` one every `milliseconds` as a microphone
    /// would deliver them.
    public static func audioChunks(of file: URL, milliseconds: Int = 100, realTime: Bool = false) throws -> AsyncStream<[Float]> {
        guard milliseconds > 0 else { throw OnDeviceError.invalidArgument("chunks of \(milliseconds) ms: expected a positive length") }
        let clip: AudioClip
        do { clip = try AudioFile.read(path: file.path).resampled(to: 16_000) } catch {
            throw OnDeviceError.invalidArgument("\(file.path): \(error)")
        }
        let step = 16 * milliseconds
        let samples = clip.samples
        let chunks = stride(from: 0, to: samples.count, by: step).map { Array(samples[$0..<min(samples.count, $0 + step)]) }
        guard realTime else {
            return AsyncStream { continuation in
                for chunk in chunks { continuation.yield(chunk) }
                continuation.finish()
            }
        }
        return AsyncStream { continuation in
            let feeder = Task {
                for chunk in chunks {
                    continuation.yield(chunk)
                    do { try await Task.sleep(for: .milliseconds(milliseconds)) } catch { break }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in feeder.cancel() }
        }
    }
}

extension OnDeviceAI {
    /// A voice session over `input`, 16 kHz mono PCM chunks (a microphone, or
    /// `VoiceSession.audioChunks(of:)` for a file). `stt`, `llm` and `tts` pick the Whisper
    /// model, language model and Piper voice (nil: this instance's configured ones; an `llm`
    /// other than the configured text model runs on an instance of its own).
    public func createVoiceSession(input: AsyncStream<[Float]>, stt: String? = nil, llm: String? = nil, tts: String? = nil,
                                   options: VoiceSessionOptions = VoiceSessionOptions()) throws -> VoiceSession {
        var chat: OnDeviceAI = self
        if let llm, llm != configuration.textModelId(for: .chat) {
            var other = configuration
            other.textModel = llm
            chat = OnDeviceAI(configuration: other)
        }
        let context = VoiceSessionContext(ai: self, chat: chat, stt: stt ?? configuration.transcriptionModel,
                                          tts: tts ?? configuration.speechVoice, options: options)
        return VoiceSession(input: input, context: context)
    }
}
