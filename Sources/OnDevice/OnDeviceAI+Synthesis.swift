import Audio
import Foundation
import Runtime
import Speech

/// Text to speech with a Piper voice (`Configuration.speechVoice`, or `voice`). Each op leases
/// the voice from the residency cache (downloaded on first use) and gives it back when done.
extension OnDeviceAI {
    /// Speaks `text` into memory.
    public func synthesize(_ text: String, voice: String? = nil, options: SpeechOptions = SpeechOptions()) async throws -> SpeechAudio {
        var samples: [Float] = []
        var rate = 0
        for try await event in synthesisStream(text, voice: voice, options: options) {
            switch event {
            case .audio(let chunk):
                samples += chunk.samples
                rate = chunk.sampleRate
            case .finished(let metrics):
                return SpeechAudio(samples: samples, sampleRate: rate, metrics: metrics)
            }
        }
        throw OnDeviceError.cancelled
    }

    /// Speaks `text` into the file at `file` (created or replaced), in the format its extension
    /// names (`.wav`, `.flac`, `.mp3`, `.opus`/`.ogg`, `.pcm`; WAV for any other). Playing audio
    /// needs a device; a file is the portable output.
    @discardableResult
    public func speak(_ text: String, to file: URL, voice: String? = nil, options: SpeechOptions = SpeechOptions()) async throws -> SpeechAudio {
        let audio = try await synthesize(text, voice: voice, options: options)
        let bytes = try audio.encoded(as: AudioFormat(fileExtension: file.pathExtension) ?? .wav)
        do { try bytes.write(to: file) } catch {
            throw OnDeviceError.invalidArgument("\(file.path): \(error.localizedDescription)")
        }
        return audio
    }

    /// Speaks `text` sentence by sentence: the first sentence's audio arrives while the rest is
    /// still being synthesized. Cancelling the consumer stops before the next sentence and
    /// releases the voice.
    public func synthesisStream(_ text: String, voice: String? = nil, options: SpeechOptions = SpeechOptions())
        -> AsyncThrowingStream<SpeechSynthesisEvent, Error> {
        let (stream, continuation) = AsyncThrowingStream<SpeechSynthesisEvent, Error>.makeStream()
        guard (0.25...4).contains(options.speed) else {
            continuation.finish(throwing: OnDeviceError.invalidArgument("speed \(options.speed): expected 0.25 to 4"))
            return stream
        }
        let modelId = voice ?? configuration.speechVoice
        let engineOptions = synthesisOptions(options)
        let task = Task.detached { [self] in
            do {
                let lease = try await leaseModel(ResidentPiperVoice.self, modelId)
                do {
                    // The voice goes back before the consumer sees `finished`, so an op that has
                    // returned holds nothing (as the text ops do).
                    var finished: SpeechSynthesisEvent?
                    for try await event in lease.model.synthesizer.stream(text, options: engineOptions) {
                        try Task.checkCancellation()
                        let outward = Self.publicEvent(event)
                        if case .finished = outward { finished = outward } else { continuation.yield(outward) }
                    }
                    await lease.release()
                    if let finished { continuation.yield(finished) }
                    continuation.finish()
                } catch {
                    await lease.release()
                    throw error
                }
            } catch {
                continuation.finish(throwing: Self.mapped(error))
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    func synthesisOptions(_ options: SpeechOptions) -> SynthesisOptions {
        var engine = SynthesisOptions(noiseScale: options.noiseScale, lengthScale: options.lengthScale, noiseW: options.noiseW,
                                      seed: options.seed, threads: modelThreads)
        engine.speed = options.speed
        return engine
    }

    static func publicEvent(_ event: SynthesisEvent) -> SpeechSynthesisEvent {
        switch event {
        case .chunk(let c):
            .audio(SpeechAudioChunk(index: c.index, text: c.text, samples: PCM16.floats(c.pcm16), sampleRate: c.sampleRate))
        case .finished(let m):
            .finished(SpeechMetrics(sentences: m.sentences, audioSeconds: m.audioSeconds, computeSeconds: m.computeSeconds,
                                    firstAudioSeconds: m.firstChunkSeconds))
        }
    }
}
