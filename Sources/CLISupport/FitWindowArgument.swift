/// `--fit-window SECONDS`: encode a short clip's window as its audio plus SECONDS instead of
/// Whisper's full 30 s (whisper.cpp's `audio_ctx`); faster, and it may change the transcript.
package enum FitWindowArgument {
    package static func parse(_ a: Arguments) throws(CLIError) -> Double? {
        guard let text = a.string("fit-window") else { return nil }
        guard let seconds = Double(text), seconds >= 0, seconds <= 30 else {
            throw CLIError.invalidValue(option: "--fit-window", value: text, expected: "0 to 30 seconds")
        }
        return seconds
    }
}
