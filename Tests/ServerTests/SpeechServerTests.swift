import Foundation
import TestSupport
import Testing

/// `/v1/audio/speech` and the transcription formats, driven by the official openai client
/// (`speech_check.py`): every speech format, streamed, at two speeds, and every compressed file
/// transcribed back to its words. Needs the Piper voice and Whisper tiny.en installed
/// (scripts/setup.sh); without them the checks fail.
@Suite(.serialized) struct SpeechServerTests {
    @Test func `the openai client speaks every format and hears it back`() async throws {
        let (found, why) = try await offPool { try OpenAIClientTests.python(["-c", "import openai"]) }
        try #require(found == 0, "python3 cannot import the openai package (run scripts/setup-openai.sh): \(why)")
        let server = try await TestServer.start(apiKey: "speech-key")
        let script = TestServer.repositoryRoot + "/Tests/ServerTests/speech_check.py"
        let port = server.port
        let (status, output) = try await offPool { try OpenAIClientTests.python([script, "http://127.0.0.1:\(port)/v1", "speech-key"]) }
        print(output.split(separator: "\n").map { "[speech] \($0)" }.joined(separator: "\n"))
        #expect(status == 0, "speech_check.py failed:\n\(output)")
        #expect(output.contains("6 passed, 0 failed"))
        await server.stop(grace: 5)
    }
}
