import Audio
import Foundation
import ModelStore
import Testing
import TestSupport

/// `ondevice speak` and `ondevice voice` on the installed models.
@Suite(.serialized) struct SpeechCLITests {
    /// The Joe voice these commands use by default; a failure when it is not installed.
    static func requireVoice() throws {
        _ = try #require(TestModels.path("en_US-joe-medium.onnx"), "en_US-joe-medium not installed: run scripts/setup.sh all")
    }

    @Test func `speak writes the golden sentence as a 22 kHz WAV and reports it as JSON`() async throws {
        try Self.requireVoice()
        let directory = try TemporaryDirectory()
        let file = directory.file("hello.wav")
        let out = try await CLIRunner.run(["speak", "Hello from OnDevice.", "-o", file, "--noise-scale", "0", "--noise-w", "0", "--json"])
        #expect(out.status == 0, "\(out.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any] ?? [:]
        #expect((json["sentences"] as? Int) == 1)
        let clip = try WAVFile.read(path: file)
        #expect(clip.sampleRate == 22_050)
        #expect(clip.samples.count == 31_488)  // golden t01_hello n_samples: durations equal piper's
    }

    @Test func `speak without an output or text fails with one line`() async throws {
        let noOutput = try await CLIRunner.run(["speak", "Hello"])
        #expect(noOutput.status == 2 && noOutput.stderr.contains("--output"), "\(noOutput.stderr)")
        let noText = try await CLIRunner.run(["speak", "-o", "/tmp/never.wav"])
        #expect(noText.status == 2 && noText.stderr.contains("TEXT"), "\(noText.stderr)")
    }

    @Test func `voice answers a recorded question into a WAV, printing events as they happen`() async throws {
        try Self.requireVoice()
        let directory = try TemporaryDirectory()
        let reply = directory.file("reply.wav")
        let input = GoldenFiles.root.appendingPathComponent("audio/p01_piper_weather.wav").path
        let out = try await CLIRunner.run(["voice", "--input", input, "-o", reply, "--threads", "2"])
        #expect(out.status == 0, "\(out.stderr)")
        let lines = out.stdout.split(separator: "\n").map(String.init)
        // `agent:` (the whole answer) may come before or among the `speaking:` lines: the voice
        // starts on the first sentence while the model writes the rest.
        let order = ["listening", "speech started", "speech ended", "user:", "thinking", "speaking:", "turn:"]
        var at = 0
        for line in lines where at < order.count && line.hasPrefix(order[at]) { at += 1 }
        #expect(at == order.count, "\(lines)")
        let agent = try #require(lines.firstIndex { $0.hasPrefix("agent:") }, "\(lines)")
        let thinking = try #require(lines.firstIndex { $0.hasPrefix("thinking") })
        let turn = try #require(lines.firstIndex { $0.hasPrefix("turn:") })
        #expect(thinking < agent && agent < turn, "\(lines)")
        #expect(try WAVFile.read(path: reply).samples.count > 0)
    }

    /// `ondevice vad` runs through the public API (`speechActivity`), so `--model` takes what the
    /// runtime takes: the catalog id, the model's folder or its safetensors file, the last two
    /// loaded where they lie. Each gives silero-vad's probabilities (the bound of
    /// `SileroVADTests`) and its segments, in samples of the 16 kHz audio.
    @Test func `vad takes the model by id, folder or file and matches silero-vad`() async throws {
        let golden = try #require(try GoldenFiles.lines("vad/silero.jsonl").first { $0.string("clip") == "p01_piper_weather" })
        let reference = try #require(golden["safetensors"] as? [String: Any])
        let probabilities = reference.floats("probs")
        let segments = try #require(reference["segments"] as? [[String: Any]])
        let weights = try #require(TestModels.path("silero_vad_16k.safetensors"), "silero-vad-v6 not installed: run scripts/setup.sh all")
        let audio = GoldenFiles.root.appendingPathComponent(golden.string("file")).path
        for model in ["silero-vad-v6", (weights as NSString).deletingLastPathComponent, weights] {
            let out = try await CLIRunner.run(["vad", audio, "--model", model, "--json", "--probabilities"])
            #expect(out.status == 0, "\(model): \(out.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any], "\(model): \(out.stdout)")
            let found = object.floats("probabilities")
            #expect(found.count == probabilities.count && !found.isEmpty, "\(model)")
            let worst = zip(found, probabilities).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst < 2e-4, "\(model): max abs difference \(worst)")
            let spans = (object["segments"] as? [[String: Any]] ?? []).map { [$0["start_sample"] as? Int, $0["end_sample"] as? Int] }
            #expect(spans == segments.map { [$0["start"] as? Int, $0["end"] as? Int] }, "\(model)")
            #expect(abs((object["duration"] as? Double ?? 0) - Double(golden["n_samples"] as? Int ?? 0) / 16_000) < 1e-9)
        }
        let missing = try await CLIRunner.run(["vad", audio, "--model", "/nonexistent/silero.safetensors"])
        #expect(missing.status != 0 && missing.stderr.contains("silero.safetensors"), "\(missing.stderr)")
    }

    /// `ondevice transcribe` runs through the public API (`transcribe`, `transcribeStream`): its
    /// JSON is faster-whisper's fields for every segment (the golden tiny.en greedy reference,
    /// tokens exact), the model may be a folder path, subtitles come from the public transcript,
    /// and a live stream settles on the same words and reports its passes.
    @Test func `transcribe gives faster-whisper's segments through the public API, by id or folder`() async throws {
        let golden = try #require(try GoldenFiles.lines("asr/whisper-tiny-en.jsonl").first { $0.string("clip") == "p01_piper_weather" })
        let reference = try #require((golden["segments"] as? [[String: Any]])?.first)
        let entry = try Catalog().entry(for: .transcribe)
        #expect(entry.id == "whisper-tiny.en-ct2")
        let folder = try #require(InstalledModels.directory(of: entry), "\(entry.id) not installed: run scripts/setup.sh all")
        let audio = GoldenFiles.root.appendingPathComponent(golden.string("file")).path
        for model in [entry.id, folder] {
            let out = try await CLIRunner.run(["transcribe", audio, "--model", model, "--greedy", "--json", "--threads", "2"])
            #expect(out.status == 0, "\(model): \(out.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any], "\(out.stdout)")
            #expect(object.string("text") == golden.string("text"), "\(model)")
            let segment = try #require((object["segments"] as? [[String: Any]])?.first)
            #expect(segment.ints("tokens") == reference.ints("tokens") && !segment.ints("tokens").isEmpty, "\(model)")
            #expect(segment["id"] as? Int == 1 && segment["seek"] as? Int == 0 && segment["temperature"] as? Double == 0)
            for key in ["avg_logprob", "compression_ratio", "no_speech_prob", "start", "end"] {
                let found = try #require(segment[key] as? Double, "\(key)"), expected = try #require(reference[key] as? Double, "\(key)")
                #expect(abs(found - expected) < 0.01, "\(key): \(found) vs \(expected)")
            }
        }
        let srt = try await CLIRunner.run(["transcribe", audio, "--greedy", "--srt"])
        #expect(srt.stdout == "1\n00:00:00,000 --> 00:00:04,080\n\(golden.string("text"))\n\n", "\(srt.stdout)")
        let live = try await CLIRunner.run(["transcribe", audio, "--stream", "--fast", "--json"])
        #expect(live.status == 0, "\(live.stderr)")
        let events = live.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let finals = events.filter { $0.string("type") == "final" }.map { $0.string("text") }.joined()
        #expect(finals.trimmingCharacters(in: .whitespaces) == golden.string("text"), "\(finals)")
        let finished = try #require(events.last)
        #expect(finished.string("type") == "finished" && (finished["passes"] as? Int ?? 0) > 0, "\(finished)")
    }
}
