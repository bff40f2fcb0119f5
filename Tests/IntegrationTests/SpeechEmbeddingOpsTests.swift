import Audio
import Foundation
import OnDevice
import Runtime
import Testing
import TestSupport

/// The public speech and embedding ops on the installed models, through runtime leases: each
/// matches its golden reference and returns every lease, and a cancelled live transcription
/// releases its model.
@Suite(.serialized) struct SpeechEmbeddingOpsTests {
    static func instance() throws -> OnDeviceAI {
        _ = try #require(TestModels.path("silero_vad_16k.safetensors"), "models not installed: run scripts/setup.sh")
        var c = OnDeviceAI.Configuration()
        c.threads = 2
        return OnDeviceAI(configuration: c)
    }

    static func clip(_ name: String) -> URL { GoldenFiles.root.appendingPathComponent("audio/\(name).wav") }

    static func waitForNoLeases(_ ai: OnDeviceAI) async throws -> Int {
        var waited = 0
        while try await ai.activeLeases() > 0 && waited < 400 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        return try await ai.activeLeases()
    }

    @Test func `transcribing a file and its samples gives the golden whisper-tiny.en text`() async throws {
        let ai = try Self.instance()
        let golden = try #require(try GoldenFiles.lines("asr/whisper-tiny-en.jsonl").first { $0.string("clip") == "p01_piper_weather" })
        let options = TranscribeOptions(beamSize: 1)
        let fromFile = try await ai.transcribe(Self.clip("p01_piper_weather"), options: options)
        #expect(fromFile.text == golden.string("text"))
        #expect(fromFile.segments.count == 1 && abs((fromFile.segments.first?.end ?? 0) - 4.08) < 1e-6)
        let wav = try WAVFile.read(path: Self.clip("p01_piper_weather").path)
        let fromSamples = try await ai.transcribe(samples: wav.samples, sampleRate: wav.sampleRate, options: options)
        #expect(fromSamples == fromFile)
        #expect(try await ai.activeLeases() == 0)
        GoldenRecords.checked(in: Self.self)
    }

    @Test func `a call names its model, and recorded bytes decode to the same samples`() async throws {
        let ai = try Self.instance()
        let bytes = Array(try Data(contentsOf: Self.clip("p01_piper_weather")))
        let audio = try SpeechAudio(decoding: bytes)
        let wav = try WAVFile.read(path: Self.clip("p01_piper_weather").path)
        #expect(audio.samples == wav.samples && audio.sampleRate == wav.sampleRate)
        do {
            _ = try SpeechAudio(decoding: Array("no audio here".utf8))
            Issue.record("text decoded as audio")
        } catch let error as OnDeviceError {
            #expect(error.code == .invalidArgument)
        }
        // The call's model, not the instance's (whisper-tiny.en): base is multilingual, so it
        // detects the language, and a model that is not there is named in the error.
        var options = TranscribeOptions(beamSize: 1)
        options.model = "whisper-base-ct2"
        options.temperature = 0
        let base = try await ai.transcribe(samples: audio.samples, sampleRate: audio.sampleRate, options: options)
        #expect(base.language == "en" && base.languageProbability > 0.5 && base.languageProbability < 1, "\(base)")
        let tiny = try await ai.transcribe(samples: audio.samples, sampleRate: audio.sampleRate, options: TranscribeOptions(beamSize: 1))
        #expect(tiny.languageProbability == 1)
        options.model = "whisper-no-such-model"
        do {
            _ = try await ai.transcribe(samples: audio.samples, sampleRate: audio.sampleRate, options: options)
            Issue.record("a missing model transcribed")
        } catch let error as OnDeviceError {
            #expect(error.code == .modelUnavailable && error.model == "whisper-no-such-model", "\(error)")
        }
        // Embeddings too: nomic's 768 dimensions beside the instance's MiniLM (384).
        let nomic = try await ai.embeddings(["a cat sat on the mat"], options: EmbedOptions(model: "nomic-embed-text-v1.5-f16"))
        #expect(nomic.model == "nomic-embed-text-v1.5-f16" && nomic.embeddings.first?.vector.count == 768)
        #expect(try await ai.embeddings(["a cat sat on the mat"]).embeddings.first?.vector.count == 384)
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `skipping silence transcribes only the speech of the VAD clip`() async throws {
        let ai = try Self.instance()
        let t = try await ai.transcribe(Self.clip("p06_piper_vad"), options: TranscribeOptions(beamSize: 1, skipSilence: true))
        #expect(t.text.lowercased().contains("hear me"), "\(t.text)")
        #expect(t.text.lowercased().contains("wait for your answer"), "\(t.text)")
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `detectSpeech finds the golden Silero segments`() async throws {
        let ai = try Self.instance()
        let golden = try #require(try GoldenFiles.lines("vad/silero.jsonl").first { $0.string("clip") == "p06_piper_vad" })
        let segments = try #require((golden["safetensors"] as? [String: Any])?["segments"] as? [[String: Any]])
        try #require(!segments.isEmpty, "the golden VAD clip has no segments")
        let regions = try await ai.detectSpeech(Self.clip("p06_piper_vad"))
        #expect(regions.count == segments.count)
        for (r, s) in zip(regions, segments) {
            #expect(abs(r.start - ((s["start"] as? Double) ?? -1) / 16_000) < 1e-6)
            #expect(abs(r.end - ((s["end"] as? Double) ?? -1) / 16_000) < 1e-6)
        }
        #expect(try await ai.activeLeases() == 0)
        GoldenRecords.checked(in: Self.self)
    }

    @Test func `embed gives the golden MiniLM vectors`() async throws {
        let ai = try Self.instance()
        let golden = Array(try GoldenFiles.lines("embeddings/minilm.jsonl").prefix(4))
        let vectors = try await ai.embed(golden.map { $0.string("text") })
        #expect(vectors.count == golden.count)
        for (v, g) in zip(vectors, golden) {
            let reference = g.floats("embedding")
            #expect(v.count == 384 && reference.count == 384)
            let cosine = zip(v, reference).reduce(Float(0)) { $0 + $1.0 * $1.1 }
            #expect(cosine > 0.9999, "\(g.string("id")): \(cosine)")
        }
        #expect(try await ai.activeLeases() == 0)
        GoldenRecords.checked(golden.count, in: Self.self)
    }

    /// `embeddings` says what the model read: the golden token ids, and for a text longer than
    /// MiniLM's 256 tokens, truncation or windows as asked, or `inputTooLong` with the counts.
    @Test func `embeddings report their tokens and what was done with a text too long`() async throws {
        let ai = try Self.instance()
        let golden = try #require(try GoldenFiles.lines("embeddings/minilm.jsonl").first)
        let one = try await ai.embeddings([golden.string("text")])
        #expect(one.model == "all-minilm-l6-v2")
        #expect(one.embeddings.first?.tokenSequences == [golden.ints("input_ids").map(Int.init)])
        #expect(one.embeddings.first?.overflow == nil)
        let long = Array(repeating: "The quick brown fox jumps over the lazy dog.", count: 60).joined(separator: " ")
        let truncated = try await ai.embeddings([long])
        guard case .truncated(let tokens, let limit)? = truncated.embeddings.first?.overflow else {
            Issue.record("\(String(describing: truncated.embeddings.first?.overflow))")
            return
        }
        #expect(tokens > 256 && limit == 256 && truncated.embeddings.first?.tokenSequences.first?.count == 256)
        let chunked = try await ai.embeddings([long], options: EmbedOptions(overflow: .chunk))
        guard case .chunked(_, let windows)? = chunked.embeddings.first?.overflow else { Issue.record("not chunked"); return }
        #expect(windows == chunked.embeddings.first?.tokenSequences.count && windows >= 2)
        do {
            _ = try await ai.embeddings([long], options: EmbedOptions(overflow: .refuse))
            Issue.record("a refused overflow embedded")
        } catch let error as OnDeviceError {
            #expect(error.code == .inputTooLong && error.tokens == tokens && error.limit == 256, "\(error)")
        }
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `live transcription of a whole clip settles on the spoken text`() async throws {
        let ai = try Self.instance()
        let samples = try WAVFile.read(path: Self.clip("p01_piper_weather").path).resampled(to: 16_000).samples
        let (audio, feeder) = AsyncStream<[Float]>.makeStream()
        for start in stride(from: 0, to: samples.count, by: 1600) { feeder.yield(Array(samples[start..<min(start + 1600, samples.count)])) }
        feeder.finish()
        var finals: [String] = []
        var finished = false
        for try await event in ai.transcribeStream(audio) {
            switch event {
            case .final(let text, _, _): finals.append(text)
            case .finished(let metrics): finished = abs(metrics.audioSeconds - Double(samples.count) / 16_000) < 1e-9 && metrics.passes > 0
            case .partial: break
            }
        }
        let text = finals.joined(separator: " ").split(separator: " ").joined(separator: " ").lowercased()
        #expect(finished)
        #expect(text.contains("weather today is sunny"), "\(text)")
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `cancelling a live transcription stops it and releases the model`() async throws {
        let ai = try Self.instance()
        let samples = try WAVFile.read(path: Self.clip("p05_piper_long").path).resampled(to: 16_000).samples
        // The audio never finishes: only cancellation can end this stream.
        let (audio, feeder) = AsyncStream<[Float]>.makeStream()
        for start in stride(from: 0, to: samples.count, by: 1600) { feeder.yield(Array(samples[start..<min(start + 1600, samples.count)])) }
        let stream = ai.transcribeStream(audio)
        let consumer = Task {
            var events = 0
            do {
                for try await _ in stream {
                    events += 1
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            } catch {}
            return events
        }
        #expect(await consumer.value >= 1)
        #expect(try await Self.waitForNoLeases(ai) == 0)
        // The transcriber went back to the pool: nothing is checked out.
        let lease = try await ai.runtime().lease(ResidentWhisperModel.self, modelId: "whisper-tiny.en-ct2", options: LoadOptions())
        let counts = lease.model.transcriberCounts
        #expect(counts.live == counts.idle)
        await lease.release()
        feeder.finish()
    }

    @Test func `a cancelled transcription stops within a window and gives its models back`() async throws {
        let ai = try Self.instance()
        let clip = try WAVFile.read(path: Self.clip("p05_piper_long").path).resampled(to: 16_000).samples
        // Ten minutes of speech: uncancelled, many seconds of encoder windows.
        let samples = Array([[Float]](repeating: clip, count: max(1, 600 * 16_000 / clip.count)).joined())
        let task = Task { try await ai.transcribe(samples: samples) }
        task.cancel()
        // Cancelled before or during the compute thread's run, it ends with the cancellation.
        do {
            _ = try await task.value
            Issue.record("a transcription of ten minutes finished although it was cancelled at once")
        } catch let error as OnDeviceError {
            #expect(error == .cancelled, "\(error)")
        }
        #expect(try await Self.waitForNoLeases(ai) == 0)
        let lease = try await ai.runtime().lease(ResidentWhisperModel.self, modelId: "whisper-tiny.en-ct2", options: LoadOptions())
        let counts = lease.model.transcriberCounts
        #expect(counts.live == counts.idle, "the transcriber went back to its pool")
        await lease.release()
    }
}
