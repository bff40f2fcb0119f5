import Audio
import EngineSupport
import Foundation

/// What live transcription yields.
package enum TranscriptionStreamEvent: Sendable, Equatable {
    /// The not-yet-agreed text after all final text so far; each partial replaces the last.
    case partial(text: String)
    /// Words two consecutive passes agreed on (or forced out when the buffer had to be cut);
    /// never revised. Times in seconds from the start of the stream, approximate within a segment.
    case final(text: String, start: Double, end: Double)
    /// The last event.
    case finished(TranscriptionStreamMetrics)
}

/// Figures of a live transcription.
package struct TranscriptionStreamMetrics: Sendable, Equatable {
    /// Whisper passes over the rolling buffer.
    package var passes = 0
    /// Audio received, and seconds spent in passes.
    package var audioSeconds = 0.0
    package var computeSeconds = 0.0
    /// Per pass: seconds from the arrival of the newest audio it covers to its partial.
    package var partialLatencies: [Double] = []

    package init() {}

    package var meanPartialLatency: Double { partialLatencies.isEmpty ? 0 : partialLatencies.reduce(0, +) / Double(partialLatencies.count) }
    package var maxPartialLatency: Double { partialLatencies.max() ?? 0 }
}

/// Live transcription over a rolling buffer with local agreement: audio arrives in chunks
/// (16 kHz mono); once `stepSeconds` of new audio has arrived the whole buffer is transcribed
/// again (prompted with the final text), words that two passes agree on become final, and the
/// buffer is cut after the last Whisper segment whose words are all final. A buffer longer than
/// `maxBufferSeconds` is cut by force at a segment boundary. With a voice activity detector,
/// a buffer without speech is dropped without running Whisper.
package final class StreamingTranscriber {
    package let transcriber: Transcriber
    package var options: TranscriptionOptions
    package let gate: VoiceActivityDetector?
    package var stepSeconds = 1.0
    package var maxBufferSeconds = 15.0

    private var buffer: [Float] = []
    /// Stream time (s) of `buffer[0]`.
    private var bufferStart = 0.0
    private var received = 0
    private var pending = 0
    private var newestArrival: ContinuousClock.Instant?
    private var agreement = LocalAgreement()
    /// Final text whose audio has left the buffer: the prompt of the next pass (text still in
    /// the buffer is not prompted, or Whisper tends to skip it).
    private var scrolledText = ""
    private var gateRemainder: [Float] = []
    private var speechInBuffer = false
    package private(set) var metrics = TranscriptionStreamMetrics()
    private let clock = ContinuousClock()
    static let rate = Double(WhisperFeatureExtractor.sampleRate)

    package init(transcriber: Transcriber, options: TranscriptionOptions = TranscriptionOptions(beamSize: 1),
                 gate: VoiceActivityDetector? = nil) {
        self.transcriber = transcriber
        var o = options
        o.withoutTimestamps = false
        self.options = o
        self.gate = gate
        gate?.reset()
    }

    /// Takes the next chunk; runs a pass when a step of new audio has arrived.
    package func feed(_ samples: [Float]) throws(SpeechError) -> [TranscriptionStreamEvent] {
        buffer += samples
        received += samples.count
        pending += samples.count
        newestArrival = clock.now
        metrics.audioSeconds = Double(received) / Self.rate
        if let gate { scoreSpeech(samples, gate: gate) }
        guard Double(pending) >= stepSeconds * Self.rate else { return [] }
        return try pass(final: false)
    }

    /// Ends the stream: a last pass, then everything tentative becomes final.
    package func finish() throws(SpeechError) -> [TranscriptionStreamEvent] {
        var events = try pass(final: true)
        events.append(.finished(metrics))
        return events
    }

    private func pass(final: Bool) throws(SpeechError) -> [TranscriptionStreamEvent] {
        pending = 0
        guard !buffer.isEmpty else { return [] }
        if gate != nil && !speechInBuffer {
            // Nothing said: keep a short tail so a word starting at the edge is not cut.
            cut(at: max(0, Double(buffer.count) / Self.rate - 0.5))
            return final ? flushEvents() : []
        }
        let t0 = clock.now
        var o = options
        let tail = String(scrolledText.suffix(200))
        o.initialPrompt = tail.isEmpty ? nil : tail
        let result = try transcriber.transcribe(samples: buffer, options: o)
        metrics.passes += 1
        metrics.computeSeconds += Transcriber.seconds(clock.now - t0)
        // A repetition loop ends the usable hypothesis (there is no temperature fallback here).
        var segments = result.segments
        if let loop = segments.firstIndex(where: { CompressionRatio.of($0.text) > (options.compressionRatioThreshold ?? 2.4) }) {
            segments.removeSubrange(loop...)
        }
        let words = Self.words(of: segments)
        var events: [TranscriptionStreamEvent] = []
        let (agreed, finalPrefix) = agreement.insert(words)
        if let e = finalEvent(agreed) { events.append(e) }
        if final {
            events += flushEvents()
            buffer = []
            return events
        }
        events.append(.partial(text: agreement.tentative.map(\.text).joined()))
        if let arrival = newestArrival { metrics.partialLatencies.append(Transcriber.seconds(clock.now - arrival)) }
        trim(segments, words: words, finalPrefix: finalPrefix, events: &events)
        return events
    }

    /// Cuts the buffer after the last segment whose words are all final; forces a cut when the
    /// buffer grows past `maxBufferSeconds`.
    private func trim(_ segments: [TranscriptionSegment], words: [TimedWord], finalPrefix: Int, events: inout [TranscriptionStreamEvent]) {
        let ends = segments.indices.map { k in words.lastIndex { $0.segment == k }.map { $0 + 1 } ?? 0 }
        if let k = segments.indices.last(where: { ends[$0] <= finalPrefix && ends[$0] > 0 }) {
            scroll(ends[k])
            cut(at: quietestPoint(near: segments[k].end))
        }
        let length = Double(buffer.count) / Self.rate
        guard length > maxBufferSeconds else { return }
        if segments.isEmpty {
            cut(at: length - 1)
        } else {
            let k = segments.count >= 2 ? segments.count - 2 : segments.count - 1
            let forcedCount = max(0, ends[k] - finalPrefix)
            if let e = finalEvent(agreement.force(forcedCount)) { events.append(e) }
            scroll(ends[k])
            cut(at: k == segments.count - 1 ? length : quietestPoint(near: segments[k].end))
        }
    }

    /// The first `count` final words leave the buffer; their text becomes prompt.
    private func scroll(_ count: Int) {
        scrolledText += agreement.committedInBuffer.prefix(count).map(\.text).joined()
        agreement.dropCommitted(count)
    }

    private func flushEvents() -> [TranscriptionStreamEvent] {
        var events: [TranscriptionStreamEvent] = []
        if let e = finalEvent(agreement.flush()) { events.append(e) }
        events.append(.partial(text: ""))
        return events
    }

    private func finalEvent(_ words: [TimedWord]) -> TranscriptionStreamEvent? {
        guard let first = words.first, let last = words.last else { return nil }
        let text = words.map(\.text).joined()
        return .final(text: text, start: bufferStart + first.start, end: bufferStart + last.end)
    }

    /// Whisper's segment ends are only good to a few hundred milliseconds, and cutting inside the
    /// next word loses it: cut instead at the quietest 20 ms (lowest energy) from 0.4 s before
    /// to 0.2 s after the segment end, preferring the one nearest the end on ties.
    private func quietestPoint(near end: Double) -> Double {
        let hop = Int(0.02 * Self.rate)
        let centre = Int(end * Self.rate)
        var best = (energy: Float.infinity, distance: Int.max, sample: centre)
        var start = max(0, centre - Int(0.4 * Self.rate))
        while start + hop <= min(buffer.count, centre + Int(0.2 * Self.rate)) {
            var energy: Float = 0
            for i in start..<(start + hop) { energy += buffer[i] * buffer[i] }
            let distance = abs(start + hop / 2 - centre)
            if energy < best.energy || (energy == best.energy && distance < best.distance) {
                best = (energy, distance, start + hop / 2)
            }
            start += hop
        }
        return Double(best.sample) / Self.rate
    }

    /// Drops the buffer's audio before `seconds` (relative to the buffer).
    private func cut(at seconds: Double) {
        let n = min(buffer.count, max(0, Int(seconds * Self.rate)))
        guard n > 0 else { return }
        buffer.removeFirst(n)
        bufferStart += Double(n) / Self.rate
        if gate != nil { speechInBuffer = false }
    }

    private func scoreSpeech(_ samples: [Float], gate: VoiceActivityDetector) {
        gateRemainder += samples
        let n = SpeechTimestamps.frameSamples
        var i = 0
        while gateRemainder.count - i >= n {
            if gate.probability(ofFrame: gateRemainder[i..<(i + n)]) >= gate.options.threshold { speechInBuffer = true }
            i += n
        }
        gateRemainder.removeFirst(i)
    }

    /// Splits segments into words (at spaces, keeping the leading space), sharing each
    /// segment's time among its words by length.
    static func words(of segments: [TranscriptionSegment]) -> [TimedWord] {
        var out: [TimedWord] = []
        for (k, s) in segments.enumerated() {
            var pieces: [String] = []
            for ch in s.text {
                if ch == " " || pieces.isEmpty { pieces.append(String(ch)) } else { pieces[pieces.count - 1].append(ch) }
            }
            pieces = pieces.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            let total = Double(max(1, pieces.reduce(0) { $0 + $1.count }))
            var t = s.start
            for p in pieces {
                let d = (s.end - s.start) * Double(p.count) / total
                out.append(TimedWord(text: p, start: t, end: t + d, segment: k))
                t += d
            }
        }
        return out
    }
}
