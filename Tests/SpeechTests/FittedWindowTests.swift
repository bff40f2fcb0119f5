import Audio
import Speech
import Testing

/// A fitted encoder window (whisper.cpp's `audio_ctx`): a short clip encodes its own frames plus
/// the padding, not 1500 positions, and the decoder attends over just those.
@Suite(.serialized) struct FittedWindowTests {
    @Test(arguments: [("tiny.en", SpeechModels.tinyEnglish), ("base", SpeechModels.base)])
    func `a 4 s clip encodes a fraction of the window and keeps its greedy transcript`(model: (String, String?)) throws {
        let directory = try #require(model.1, "Whisper \(model.0) not found: run scripts/setup.sh all")
        let transcriber = try SpeechModels.transcriber(directory)
        let audio = try WAVFile.read(path: GoldenFiles.path("audio/p01_piper_weather.wav"))
        var options = TranscriptionOptions(language: "en", beamSize: 1)
        options.temperatures = [0]
        let full = try transcriber.transcribe(audio, options: options)
        #expect(transcriber.metrics.encodedPositions == 1500)
        options.fittedWindowPadding = 1
        let fitted = try transcriber.transcribe(audio, options: options)
        // 409 content frames plus 100 frames of padding, rounded up to even: 510 frames, 255
        // positions of the encoder's 1500.
        #expect(transcriber.metrics.windows == 1)
        #expect(transcriber.metrics.encodedPositions == 255)
        // Measured equal for this clip with both models (base's closing timestamp moves from
        // 4.00 to 4.08 s); other clips can differ (README).
        #expect(fitted.text == full.text, "\(model.0): \(fitted.text) vs \(full.text)")
    }

    @Test func `a padding outside 0 to 30 seconds is an invalid option`() throws {
        var options = TranscriptionOptions()
        options.fittedWindowPadding = -1
        #expect(throws: SpeechError.self) { try options.validate() }
        options.fittedWindowPadding = 31
        #expect(throws: SpeechError.self) { try options.validate() }
        options.fittedWindowPadding = 0
        try options.validate()
    }
}
