import Foundation

/// What voice activity detection on a live stream yields.
package enum VADEvent: Sendable, Equatable {
    /// Speech began at this stream time (seconds; padded like `get_speech_timestamps`).
    case speechStarted(at: Double)
    /// Speech ended at this stream time.
    case speechEnded(at: Double)
    /// One 32 ms frame: its end time and speech probability.
    case activity(time: Double, probability: Float)
}

extension VoiceActivityDetector {
    /// Scores 16 kHz chunks as they arrive and reports speech start and end as silero-vad's
    /// `VADIterator` does: start at the first frame at or above the threshold, end after
    /// `minSilenceDurationMs` below threshold − 0.15, both padded by `speechPadMs`.
    package final class StreamState {
        var remainder: [Float] = []
        var samples = 0
        var triggered = false
        var tempEnd = 0
        package init() {}
    }

    /// Events for the next chunk; `state` carries the stream between calls.
    package func process(_ chunk: [Float], state s: StreamState) -> [VADEvent] {
        let n = SpeechTimestamps.frameSamples
        let pad = 16 * options.speechPadMs, minSilence = 16 * options.minSilenceDurationMs
        s.remainder += chunk
        var events: [VADEvent] = []
        var i = 0
        while s.remainder.count - i >= n {
            let p = probability(ofFrame: s.remainder[i..<(i + n)])
            i += n
            s.samples += n
            events.append(.activity(time: Double(s.samples) / 16_000, probability: p))
            if p >= options.threshold && s.tempEnd != 0 { s.tempEnd = 0 }
            if p >= options.threshold && !s.triggered {
                s.triggered = true
                events.append(.speechStarted(at: Double(max(0, s.samples - pad - n)) / 16_000))
            } else if p < options.threshold - 0.15 && s.triggered {
                if s.tempEnd == 0 { s.tempEnd = s.samples }
                if s.samples - s.tempEnd >= minSilence {
                    events.append(.speechEnded(at: Double(s.tempEnd + pad - n) / 16_000))
                    s.tempEnd = 0
                    s.triggered = false
                }
            }
        }
        s.remainder.removeFirst(i)
        return events
    }
}

/// Voice activity of a live stream of 16 kHz chunks; ends an open speech span when the audio
/// ends. Cancelling the consumer cancels the producer.
package func detectStream(_ vad: VoiceActivityDetector, audio: AsyncStream<[Float]>) -> AsyncThrowingStream<VADEvent, Error> {
    let (stream, continuation) = AsyncThrowingStream<VADEvent, Error>.makeStream()
    let box = VADBox(vad)
    let task = Task.detached {
        box.vad.reset()
        let state = VoiceActivityDetector.StreamState()
        for await chunk in audio {
            if Task.isCancelled { continuation.finish(throwing: SpeechError.cancelled); return }
            for event in box.vad.process(chunk, state: state) { continuation.yield(event) }
        }
        if state.triggered { continuation.yield(.speechEnded(at: Double(state.samples) / 16_000)) }
        continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
}

/// `@unchecked Sendable`: only the producer task uses the detector while the stream is live.
final class VADBox: @unchecked Sendable {
    let vad: VoiceActivityDetector
    init(_ vad: VoiceActivityDetector) { self.vad = vad }
}
