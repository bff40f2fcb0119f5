import Audio
import Foundation
import Speech
import Platform
import Testing

@Suite(.serialized) struct StreamingTests {
    static func chunks(_ samples: [Float], milliseconds: Int) -> AsyncStream<[Float]> {
        let (stream, continuation) = AsyncStream<[Float]>.makeStream()
        let n = 16 * milliseconds
        for i in stride(from: 0, to: samples.count, by: n) { continuation.yield(Array(samples[i..<min(i + n, samples.count)])) }
        continuation.finish()
        return stream
    }

    @Test func `live transcription of a clip ends with its whole text as final words`() async throws {
        guard let dir = SpeechModels.tinyEnglish else { Issue.record("tiny.en not installed"); return }
        let clip = try WAVFile.read(path: GoldenFiles.path("audio/p02_piper_callback.wav"))
        let streaming = StreamingTranscriber(transcriber: try SpeechModels.transcriber(dir), options: TranscriptionOptions(language: "en", beamSize: 1))
        var finals: [(String, Double, Double)] = []
        var partials = 0
        var finished: TranscriptionStreamMetrics?
        for try await event in transcribeStream(streaming, audio: Self.chunks(clip.samples, milliseconds: 100)) {
            #expect(finished == nil, "nothing after .finished")
            switch event {
            case .partial: partials += 1
            case let .final(text, start, end): finals.append((text, start, end))
            case .finished(let m): finished = m
            }
        }
        #expect(finals.map(\.0).joined() == " Please call me back before 6 o'clock. My number is 555-1234.")
        #expect(partials >= 4)
        #expect(finals.allSatisfy { $0.1 <= $0.2 + 0.5 && $0.2 <= clip.duration + 0.1 })
        let m = try #require(finished)
        #expect(m.passes >= 5 && m.partialLatencies.count == m.passes - 1)
        #expect(abs(m.audioSeconds - clip.duration) < 0.01)
    }

    @Test func `a gated stream of silence yields no text and never runs Whisper`() async throws {
        guard let dir = SpeechModels.tinyEnglish, let vadPath = SpeechModels.silero else { Issue.record("models not installed"); return }
        let streaming = StreamingTranscriber(transcriber: try SpeechModels.transcriber(dir), gate: try VoiceActivityDetector(path: vadPath))
        var texts: [String] = []
        var passes = -1
        for try await event in transcribeStream(streaming, audio: Self.chunks([Float](repeating: 0, count: 80_000), milliseconds: 100)) {
            if case let .final(text, _, _) = event { texts.append(text) }
            if case .partial(let text) = event, !text.isEmpty { texts.append(text) }
            if case .finished(let m) = event { passes = m.passes }
        }
        #expect(texts.isEmpty)
        #expect(passes == 0)
    }

    @Test func `cancelling the consumer stops the stream and its audio input`() async throws {
        guard let dir = SpeechModels.tinyEnglish else { Issue.record("tiny.en not installed"); return }
        let clip = try WAVFile.read(path: GoldenFiles.path("audio/p01_piper_weather.wav"))
        let (audio, feeder) = AsyncStream<[Float]>.makeStream()
        let stopped = Locked(false)
        feeder.onTermination = { _ in stopped.withLock { $0 = true } }
        // An endless microphone: the clip over and over.
        let producer = Task {
            var i = 0
            while !Task.isCancelled && !stopped.withLock({ $0 }) {
                feeder.yield(Array(clip.samples[(i % 40) * 1600..<((i % 40) + 1) * 1600]))
                i += 1
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let streaming = StreamingTranscriber(transcriber: try SpeechModels.transcriber(dir), options: TranscriptionOptions(language: "en", beamSize: 1))
        for try await event in transcribeStream(streaming, audio: audio) {
            if case .partial = event { break }
        }
        // The producer task is cancelled on termination, which ends its iteration of the audio.
        let deadline = ContinuousClock.now + .seconds(60)
        while !stopped.withLock({ $0 }) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(stopped.withLock { $0 })
        producer.cancel()
    }

    @Test func `VAD on a live stream reports each speech span once`() async throws {
        guard let vadPath = SpeechModels.silero else { Issue.record("silero not installed"); return }
        let clip = try WAVFile.read(path: GoldenFiles.path("audio/p06_piper_vad.wav"))
        var starts: [Double] = [], ends: [Double] = []
        var frames = 0
        for try await event in detectStream(try VoiceActivityDetector(path: vadPath), audio: Self.chunks(clip.samples, milliseconds: 100)) {
            switch event {
            case .speechStarted(let t): starts.append(t)
            case .speechEnded(let t): ends.append(t)
            case .activity: frames += 1
            }
        }
        // golden/vad: speech at 1.538–2.814 s and 4.866–6.302 s (get_speech_timestamps).
        #expect(starts.count == 2 && ends.count == 2, "\(starts) \(ends)")
        for (got, want) in zip(starts, [1.538, 4.866]) { #expect(abs(got - want) < 0.1, "start \(got)") }
        for (got, want) in zip(ends, [2.814, 6.302]) { #expect(abs(got - want) < 0.15, "end \(got)") }
        #expect(frames == clip.samples.count / 512)
    }
}
