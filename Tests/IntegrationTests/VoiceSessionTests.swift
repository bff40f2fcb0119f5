import Audio
import Foundation
import ModelStore
import OnDevice
import Testing
import TestSupport

/// Speech synthesis and voice sessions through the public API on the installed models (Joe
/// voice, Silero VAD, Whisper tiny.en, SmolLM2). Every wait is for an event, never a time.
@Suite(.serialized) struct VoiceSessionTests {
    static func instance() throws -> OnDeviceAI {
        _ = try #require(TestModels.path("en_US-joe-medium.onnx"), "models not installed: run scripts/setup.sh")
        var c = OnDeviceAI.Configuration()
        c.threads = 2
        return OnDeviceAI(configuration: c)
    }

    static func clip(_ name: String) throws -> [Float] {
        try WAVFile.read(path: GoldenFiles.root.appendingPathComponent("audio/\(name).wav").path).resampled(to: 16_000).samples
    }

    static func feed(_ samples: [Float], to input: AsyncStream<[Float]>.Continuation) {
        for start in stride(from: 0, to: samples.count, by: 1_600) { input.yield(Array(samples[start..<min(samples.count, start + 1_600)])) }
    }

    /// The event without its payload, for order checks.
    static func name(_ event: VoiceEvent) -> String {
        switch event {
        case .listening: "listening"
        case .speechStarted: "speechStarted"
        case .speechEnded: "speechEnded"
        case .userTranscribed: "userTranscribed"
        case .thinking: "thinking"
        case .agentResponse: "agentResponse"
        case .speaking: "speaking"
        case .turnCompleted: "turnCompleted"
        case .error(let m): "error(\(m))"
        }
    }

    @Test func `synthesize and speak give the golden sentence's length and write it as a WAV`() async throws {
        let ai = try Self.instance()
        let golden = try #require(try GoldenFiles.lines("tts/piper-joe.jsonl").last)
        let options = SpeechOptions(noiseScale: 0, lengthScale: 1, noiseW: 0)
        let audio = try await ai.synthesize(golden.string("text"), options: options)
        #expect(audio.sampleRate == 22_050)
        #expect(audio.samples.count == (golden["n_samples"] as? NSNumber)?.intValue)
        #expect(audio.samples.map { abs($0) }.max() == Float(32767) / 32768)  // the peak sample, normalized
        let directory = try TemporaryDirectory()
        let file = URL(fileURLWithPath: directory.path + "/out.wav")
        try await ai.speak(golden.string("text"), to: file, options: options)
        #expect(try WAVFile.read(path: file.path).samples == audio.samples)
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `a voice named by its onnx path speaks as its id does, at any speed, in any format`() async throws {
        let ai = try Self.instance()
        let options = SpeechOptions(noiseScale: 0, lengthScale: 1, noiseW: 0)
        let text = "The path names the same voice."
        let byId = try await ai.synthesize(text, options: options)
        let installed = try #require(try await ModelStore().resolve(ai.configuration.speechVoice))
        let onnx = try #require(installed.firstPath(withSuffix: ".onnx"))
        let byPath = try await ai.synthesize(text, voice: onnx, options: options)
        #expect(byPath.samples == byId.samples, "the same network and config, loaded where it lies")
        var fast = options
        fast.speed = 2
        let quick = try await ai.synthesize(text, options: fast)
        let ratio = Double(quick.samples.count) / Double(byId.samples.count)
        #expect(ratio > 0.4 && ratio < 0.65, "speed 2 takes about half as long: \(ratio)")
        var wrong = options
        wrong.speed = 9
        await #expect(throws: OnDeviceError.self) { try await ai.synthesize(text, options: wrong) }
        let directory = try TemporaryDirectory()
        for ext in ["flac", "mp3", "opus"] {
            let file = URL(fileURLWithPath: directory.path + "/out.\(ext)")
            try await ai.speak(text, to: file, options: options)
            let back = try AudioFile.read(path: file.path)
            #expect(abs(back.duration - byId.duration) < 0.15, "\(ext): \(back.duration) s vs \(byId.duration) s")
        }
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `cancelling a synthesis stream after its first sentence releases the voice`() async throws {
        let ai = try Self.instance()
        var first: SpeechAudioChunk?
        for try await event in ai.synthesisStream("First sentence here. A second one follows. Then a third.") {
            if case .audio(let chunk) = event { first = chunk; break }
        }
        #expect(first?.index == 0 && first?.text == "First sentence here.")
        var waited = 0
        while try await ai.activeLeases() > 0 && waited < 600 {
            try await Task.sleep(for: .milliseconds(50))  // polls the lease count; asserts nothing about time
            waited += 1
        }
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `a voice session answers a recorded question with speech, in event order`() async throws {
        let ai = try Self.instance()
        let session = try ai.createVoiceSession(input: try VoiceSession.audioChunks(of: GoldenFiles.root.appendingPathComponent("audio/p01_piper_weather.wav")))
        var events: [VoiceEvent] = []
        for await event in session.events { events.append(event) }
        let names = events.map(Self.name)
        print("voice session events: \(names)")
        // The voice speaks each sentence as soon as it is written, so `agentResponse` (the whole
        // answer, once the model has finished) may come before or among the `speaking` chunks.
        var collapsed: [String] = []
        for n in names where n != "agentResponse" && (collapsed.last != n || n != "speaking") { collapsed.append(n) }
        #expect(collapsed == ["listening", "speechStarted", "speechEnded", "userTranscribed", "thinking",
                              "speaking", "turnCompleted", "listening"])
        #expect(names.filter { $0 == "agentResponse" }.count == 1)
        let response = try #require(names.firstIndex(of: "agentResponse"))
        let thinking = try #require(names.firstIndex(of: "thinking")), completed = try #require(names.firstIndex(of: "turnCompleted"))
        #expect(thinking < response && response < completed)
        let answer = events.compactMap { if case .agentResponse(let t) = $0 { t } else { nil } }.first ?? ""
        let spoken = events.compactMap { if case .speaking(let c) = $0 { c.text } else { nil } }
        #expect(spoken.joined(separator: " ").filter { !$0.isWhitespace } == answer.filter { !$0.isWhitespace },
                "the chunks speak the whole answer, in order")
        let heard = events.compactMap { if case .userTranscribed(let t) = $0 { t } else { nil } }.first ?? ""
        #expect(heard.lowercased().contains("weather"), "\(heard)")
        let reply = events.flatMap { if case .speaking(let c) = $0 { c.samples } else { [Float]() } }
        #expect(!reply.isEmpty)
        let directory = try TemporaryDirectory()
        try WAVFile.write(AudioClip(samples: reply, sampleRate: 22_050), to: directory.path + "/reply.wav")
        #expect(try WAVFile.read(path: directory.path + "/reply.wav").samples.count == reply.count)
        let turn = try #require(session.turns.first)
        print("voice turn: end of speech → first audio \(turn.firstAudioLatency) s (transcribe \(turn.transcribeSeconds) s, first sentence \(turn.firstSentenceSeconds) s, think \(turn.thinkSeconds) s), reply \(turn.replySeconds) s")
        // The first audio waits for the transcript and the first sentence, not the whole answer.
        #expect(turn.firstAudioLatency > turn.transcribeSeconds + turn.firstSentenceSeconds - 1e-9)
        #expect(turn.firstSentenceSeconds > 0 && turn.firstSentenceSeconds <= turn.thinkSeconds)
        #expect(!turn.interrupted && session.turns.count == 1)
        #expect(try await ai.activeLeases() == 0)
    }

    /// The model writes an answer of several sentences; the voice starts on the first while it
    /// writes on. Deterministic, not timed: the model runs at most one sentence ahead of the
    /// voice (none on two cores, where they take turns), so it cannot have handed over its
    /// third sentence (nor finished) before the first one's audio was out — `speaking`
    /// precedes `agentResponse` whatever the speeds.
    @Test func `the first sentence speaks before the model has finished an answer of several sentences`() async throws {
        let ai = try Self.instance()
        var options = VoiceSessionOptions()
        options.instructions = "Repeat the user's message back to them, then say thank you."
        options.text.maxTokens = 60
        let session = try ai.createVoiceSession(input: try VoiceSession.audioChunks(of: GoldenFiles.root.appendingPathComponent("audio/p01_piper_weather.wav")),
                                                options: options)
        var events: [VoiceEvent] = []
        for await event in session.events { events.append(event) }
        let names = events.map(Self.name)
        print("streamed reply events: \(names)")
        let chunks = events.compactMap { if case .speaking(let c) = $0 { c } else { nil } }
        try #require(chunks.count >= 3, "the answer needs three sentences: \(chunks.map(\.text))")
        #expect(chunks.map(\.index) == Array(0..<chunks.count))
        let response = try #require(names.firstIndex(of: "agentResponse"))
        let before = names[..<response].filter { $0 == "speaking" }.count
        #expect(before >= 1, "speaking chunks before the whole answer: \(before)")
        let turn = try #require(session.turns.first)
        #expect(!turn.interrupted && turn.firstSentenceSeconds < turn.thinkSeconds)
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `speech while the agent speaks stops the reply and starts a new turn`() async throws {
        let ai = try Self.instance()
        let (input, feeder) = AsyncStream<[Float]>.makeStream()
        let session = try ai.createVoiceSession(input: input)
        Self.feed(try Self.clip("p01_piper_weather") + [Float](repeating: 0, count: 16_000), to: feeder)
        var names: [String] = []
        var bargedIn = false
        for await event in session.events {
            names.append(Self.name(event))
            if case .speaking = event, !bargedIn {
                bargedIn = true
                Self.feed(try Self.clip("p02_piper_callback"), to: feeder)
                feeder.finish()
            }
            if case .error = event { feeder.finish() }
            if case .turnCompleted = event, !bargedIn { feeder.finish() }  // fails below: no barge-in happened
        }
        print("barge-in events: \(names)")
        let firstSpeaking = try #require(names.firstIndex(of: "speaking"))
        let after = Array(names[(firstSpeaking + 1)...].drop { $0 == "speaking" || $0 == "turnCompleted" })
        #expect(Array(after.prefix(3)) == ["listening", "speechStarted", "speechEnded"])
        #expect(names.filter { $0 == "userTranscribed" }.count == 2)
        #expect(session.turns.count == 2)
        #expect(session.turns.first?.interrupted == true)
        #expect(session.turns.last?.interrupted == false)
        #expect(try await ai.activeLeases() == 0)
    }

    @Test func `interrupt stops the reply and close ends the session`() async throws {
        let ai = try Self.instance()
        let (input, feeder) = AsyncStream<[Float]>.makeStream()
        let session = try ai.createVoiceSession(input: input)
        Self.feed(try Self.clip("p01_piper_weather") + [Float](repeating: 0, count: 16_000), to: feeder)
        var names: [String] = []
        for await event in session.events {
            names.append(Self.name(event))
            if case .agentResponse = event { session.interrupt() }
            if names.last == "listening" && names.contains("agentResponse") { session.close() }
        }
        // Chunks synthesized before `interrupt()` ran may precede its `listening`; none follow it.
        #expect(names.last == "listening", "\(names)")
        #expect(session.turns.first?.interrupted == true)
        feeder.finish()
    }
}
