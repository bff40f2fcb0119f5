import CLISupport
import Foundation
import OnDevice

/// `ondevice voice --input in.wav -o reply.wav`: a turn-based voice session over a recorded
/// question. Events are printed as they happen (one JSON object per line with `--json`); the
/// spoken answer goes to the output WAV.
enum VoiceCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(ArraySlice(args.map { $0 == "-o" ? "--output" : $0 }),
                              options: ["input", "output", "stt", "llm", "tts", "threads", "system", "max-tokens"],
                              flags: ["json"])
        let input = try a.require("input")
        let output = try a.require("output")
        var configuration = OnDeviceAI.Configuration()
        configuration.threads = try a.int("threads")
        var options = VoiceSessionOptions()
        if let system = a.string("system") { options.instructions = system }
        if let n = try a.int("max-tokens") { options.text.maxTokens = n }
        let ai = OnDeviceAI(configuration: configuration)
        let audio = try VoiceSession.audioChunks(of: URL(fileURLWithPath: input))
        let session = try ai.createVoiceSession(input: audio, stt: a.string("stt"), llm: a.string("llm"), tts: a.string("tts"),
                                                options: options)
        var reply: [Float] = []
        var rate = 22_050
        var failure: String?
        for await event in session.events {
            if case .speaking(let chunk) = event {
                reply += chunk.samples
                rate = chunk.sampleRate
            }
            if case .error(let message) = event { failure = message }
            if a.has("json") { try printJSON(json(event)) } else { writeOut(line(event) + "\n") }
        }
        guard !reply.isEmpty else { throw CLIError.io(failure ?? "the session produced no spoken answer") }
        let bytes = try SpeechAudio(samples: reply, sampleRate: rate).encoded(as: .wav)
        guard FileManager.default.createFile(atPath: output, contents: bytes) else {
            throw CLIError.invalidValue(option: "-o", value: output, expected: "a writable path")
        }
        if !a.has("json") { writeOut("wrote \(output) (\(String(format: "%.2f", Double(reply.count) / Double(rate))) s)\n") }
    }

    static func line(_ event: VoiceEvent) -> String {
        switch event {
        case .listening: "listening"
        case .speechStarted: "speech started"
        case .speechEnded: "speech ended"
        case .userTranscribed(let text): "user: \(text)"
        case .thinking: "thinking"
        case .agentResponse(let text): "agent: \(text)"
        case .speaking(let c): String(format: "speaking: sentence %d, %.2f s", c.index, c.duration)
        case .turnCompleted(let m):
            String(format: "turn: end of speech → first audio %.2f s (transcribe %.2f s, first sentence %.2f s, think %.2f s), reply %.2f s",
                   m.firstAudioLatency, m.transcribeSeconds, m.firstSentenceSeconds, m.thinkSeconds, m.replySeconds)
        case .error(let message): "error: \(message)"
        }
    }

    static func json(_ event: VoiceEvent) -> [String: Any] {
        switch event {
        case .listening: ["event": "listening"]
        case .speechStarted: ["event": "speech_started"]
        case .speechEnded: ["event": "speech_ended"]
        case .userTranscribed(let text): ["event": "user_transcribed", "text": text]
        case .thinking: ["event": "thinking"]
        case .agentResponse(let text): ["event": "agent_response", "text": text]
        case .speaking(let c): ["event": "speaking", "index": c.index, "text": c.text, "seconds": c.duration]
        case .turnCompleted(let m):
            ["event": "turn_completed", "first_audio_latency": m.firstAudioLatency, "transcribe_seconds": m.transcribeSeconds,
             "think_seconds": m.thinkSeconds,
             "first_sentence_seconds": m.firstSentenceSeconds, "speech_seconds": m.speechSeconds, "reply_seconds": m.replySeconds]
        case .error(let message): ["event": "error", "message": message]
        }
    }
}
