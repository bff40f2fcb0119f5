import Audio
import EngineSupport
import Foundation
import Runtime
import Speech

/// Speech to text and voice activity. Every op leases its model from the runtime's residency
/// cache (downloaded on first use, loaded on a miss, evicted under the memory budget) and gives
/// it back however the op ends.
extension OnDeviceAI {
    /// Transcribes a WAV file (any sample rate; resampled to 16 kHz).
    public func transcribe(_ file: URL, options: TranscribeOptions = TranscribeOptions()) async throws -> Transcript {
        try await transcribe(try Self.readAudio(file), options: options)
    }

    /// Transcribes mono `samples` at `sampleRate` Hz.
    public func transcribe(samples: [Float], sampleRate: Int = 16_000, options: TranscribeOptions = TranscribeOptions()) async throws -> Transcript {
        try await transcribe(AudioClip(samples: samples, sampleRate: sampleRate), options: options)
    }

    /// Live transcription: feed 16 kHz mono chunks (e.g. 100 ms from a microphone) into `audio`
    /// and finish it when the recording ends. Yields partial text, settled text, then
    /// `.finished`. Decoding is greedy. Cancelling the consumer stops before the next Whisper
    /// pass and releases the model.
    public func transcribeStream(_ audio: AsyncStream<[Float]>, options: TranscribeOptions = TranscribeOptions())
        -> AsyncThrowingStream<LiveTranscriptEvent, Error> {
        let (stream, continuation) = AsyncThrowingStream<LiveTranscriptEvent, Error>.makeStream()
        let task = Task.detached { [self] in
            var held: SpeechLeases?
            do {
                let leases = try await leaseSpeech(vad: options.skipSilence, model: options.model)
                held = leases
                let slot = leases.whisper.model.checkOut(threads: modelThreads)
                defer { leases.whisper.model.checkIn(slot) }
                var engineOptions = options.engineOptions
                engineOptions.beamSize = 1
                engineOptions.temperatures = [0]
                engineOptions.wordTimestamps = false  // streams do not align words
                let streaming = StreamingTranscriber(transcriber: slot.transcriber, options: engineOptions,
                                                     gate: leases.vad?.model.detector())
                for await chunk in audio {
                    try Task.checkCancellation()
                    for event in try streaming.feed(chunk) { Self.yield(event, to: continuation) }
                }
                try Task.checkCancellation()
                for event in try streaming.finish() { Self.yield(event, to: continuation) }
                await leases.release()
                continuation.finish()
            } catch {
                await held?.release()
                continuation.finish(throwing: Self.mapped(error))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Regions of speech in a WAV file.
    public func detectSpeech(_ file: URL, options: SpeechDetectionOptions = SpeechDetectionOptions()) async throws -> [SpeechRegion] {
        try await speechActivity(try Self.readAudio(file), options: options).regions
    }

    /// Regions of speech in mono `samples` at `sampleRate` Hz.
    public func detectSpeech(samples: [Float], sampleRate: Int = 16_000,
                             options: SpeechDetectionOptions = SpeechDetectionOptions()) async throws -> [SpeechRegion] {
        try await speechActivity(AudioClip(samples: samples, sampleRate: sampleRate), options: options).regions
    }

    /// The regions of speech in an audio file with each frame's speech probability and the
    /// audio's length, for tools that show or tune the detector.
    public func speechActivity(_ file: URL, options: SpeechDetectionOptions = SpeechDetectionOptions()) async throws -> SpeechActivity {
        try await speechActivity(try Self.readAudio(file), options: options)
    }

    // MARK: Internals

    /// Whisper runs on a compute thread: a transcription holds a core for seconds, which on the
    /// cooperative pool would starve every other task of the process on a two-core machine.
    private func transcribe(_ clip: AudioClip, options: TranscribeOptions) async throws -> Transcript {
        let leases = try await leaseSpeech(vad: options.skipSilence, model: options.model)
        do {
            let (whisper, vad, threads, engineOptions) = (leases.whisper.model, leases.vad?.model, modelThreads, options.engineOptions)
            let result = try await ComputeThread.run(name: "ondevice.transcribe") { cancelled in
                let slot = whisper.checkOut(threads: threads)
                defer { whisper.checkIn(slot) }
                if let vad {
                    return try slot.transcriber.transcribe(clip, options: engineOptions, speechOnly: vad.detector(),
                                                           isCancelled: { cancelled.isCancelled })
                }
                return try slot.transcriber.transcribe(clip, options: engineOptions, isCancelled: { cancelled.isCancelled })
            }
            await leases.release()
            return Transcript(result)
        } catch {
            await leases.release()
            throw Self.mapped(error)
        }
    }

    private func speechActivity(_ clip: AudioClip, options: SpeechDetectionOptions) async throws -> SpeechActivity {
        let samples: [Float]
        do { samples = try clip.resampled(to: SpeechActivity.sampleRate).samples } catch { throw Self.mapped(SpeechError.audio(error)) }
        let lease = try await leaseModel(ResidentVoiceActivityModel.self, configuration.voiceActivityModel)
        let engineOptions = options.engineOptions
        let probabilities = lease.model.detector(options: engineOptions).probabilities(samples)
        await lease.release()
        let segments = SpeechTimestamps.segments(probabilities: probabilities, sampleCount: samples.count, options: engineOptions)
        return SpeechActivity(regions: segments.map { SpeechRegion(start: $0.startSeconds, end: $0.endSeconds) },
                              frameProbabilities: probabilities,
                              duration: Double(samples.count) / Double(SpeechActivity.sampleRate))
    }

    private func leaseSpeech(vad: Bool, model: String?) async throws -> SpeechLeases {
        let whisper = try await leaseModel(ResidentWhisperModel.self, model ?? configuration.transcriptionModel)
        guard vad else { return SpeechLeases(whisper: whisper, vad: nil) }
        do {
            return SpeechLeases(whisper: whisper, vad: try await leaseModel(ResidentVoiceActivityModel.self, configuration.voiceActivityModel))
        } catch {
            await whisper.release()
            throw error
        }
    }

    private static func yield(_ event: TranscriptionStreamEvent, to continuation: AsyncThrowingStream<LiveTranscriptEvent, Error>.Continuation) {
        switch event {
        case .partial(let text): continuation.yield(.partial(text))
        case let .final(text, start, end): continuation.yield(.final(text, start: start, end: end))
        case .finished(let m):
            continuation.yield(.finished(LiveTranscriptMetrics(audioSeconds: m.audioSeconds, computeSeconds: m.computeSeconds, passes: m.passes,
                                                               meanPartialLatency: m.meanPartialLatency, maxPartialLatency: m.maxPartialLatency)))
        }
    }

    static func readAudio(_ file: URL) throws -> AudioClip {
        do { return try AudioFile.read(path: file.path) } catch { throw OnDeviceError.invalidArgument("\(file.path): \(error)") }
    }

    /// Engine errors in the words of the public API.
    static func mapped(_ error: Error) -> Error {
        switch error {
        case let e as SpeechError:
            switch e {
            case .cancelled: return OnDeviceError.cancelled
            case let .invalidOption(name, value, expected): return OnDeviceError.invalidArgument("\(name) \(value): expected \(expected)")
            case .unsupportedLanguage: return OnDeviceError.invalidArgument(e.description)
            default: return OnDeviceError.engine(e.description)
            }
        case is CancellationError: return OnDeviceError.cancelled
        case RuntimeError.cancelled: return OnDeviceError.cancelled
        default: return error
        }
    }
}

/// The speech models one op holds.
struct SpeechLeases: Sendable {
    let whisper: EngineLease<ResidentWhisperModel>
    let vad: EngineLease<ResidentVoiceActivityModel>?

    func release() async {
        await whisper.release()
        await vad?.release()
    }
}
