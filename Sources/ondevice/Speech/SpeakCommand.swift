import CLISupport
import Foundation
import OnDevice

/// `ondevice speak TEXT|--file F -o out.wav`: text to speech with a Piper voice, in the format the
/// output's extension names (wav, flac, mp3, opus/ogg, pcm) or `--format`. `-o -` writes to
/// stdout (WAV unless `--format`). Prints a one-line summary on stderr, or one JSON object (`--json`).
enum SpeakCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(ArraySlice(args.map { $0 == "-o" ? "--output" : $0 }),
                              options: ["file", "output", "voice", "threads", "noise-scale", "length-scale", "noise-w", "seed", "speed",
                                        "format"],
                              flags: ["json"])
        let text: String
        if let file = a.string("file") {
            guard a.positionals.isEmpty else { throw CLIError.conflicting("--file", "TEXT") }
            do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
                throw CLIError.invalidValue(option: "--file", value: file, expected: "a readable UTF-8 text file")
            }
        } else {
            guard !a.positionals.isEmpty else { throw CLIError.missingArgument("TEXT") }
            text = a.positionals.joined(separator: " ")
        }
        let output = try a.require("output")
        var configuration = OnDeviceAI.Configuration()
        configuration.threads = try a.int("threads")
        if let t = configuration.threads, t < 1 { throw CLIError.invalidValue(option: "--threads", value: "\(t)", expected: "positive") }
        let options = SpeechOptions(noiseScale: try a.float("noise-scale"), lengthScale: try a.float("length-scale"),
                                    noiseW: try a.float("noise-w"), speed: try a.float("speed") ?? 1, seed: UInt64(try a.int("seed") ?? 0))
        let format: AudioFormat
        if let name = a.string("format") {
            guard let f = AudioFormat(rawValue: name) else {
                throw CLIError.invalidValue(option: "--format", value: name, expected: AudioFormat.allCases.map(\.rawValue).joined(separator: ", "))
            }
            format = f
        } else {
            format = AudioFormat(fileExtension: (output as NSString).pathExtension) ?? .wav
        }
        let ai = OnDeviceAI(configuration: configuration)
        let voice = a.string("voice") ?? configuration.speechVoice
        let audio = try await ai.synthesize(text, voice: voice, options: options)
        let bytes = try audio.encoded(as: format)
        if output == "-" {
            FileHandle.standardOutput.write(bytes)
        } else {
            guard FileManager.default.createFile(atPath: output, contents: bytes) else {
                throw CLIError.invalidValue(option: "-o", value: output, expected: "a writable path")
            }
        }
        let m = audio.metrics
        if a.has("json") && output != "-" {
            try printJSON(["output": output, "format": format.rawValue, "bytes": bytes.count, "voice": voice, "sample_rate": audio.sampleRate, "samples": audio.samples.count,
                           "audio_seconds": m.audioSeconds, "sentences": m.sentences, "compute_seconds": m.computeSeconds,
                           "first_audio_seconds": m.firstAudioSeconds, "real_time_factor": m.realTimeFactor])
        } else {
            FileHandle.standardError.write(Data(String(
                format: "%@: %.2f s of audio at %d Hz, %d sentence(s), synthesized in %.2f s (RTF %.3f, first audio %.2f s)\n",
                output, m.audioSeconds, audio.sampleRate, m.sentences, m.computeSeconds, m.realTimeFactor, m.firstAudioSeconds).utf8))
        }
    }
}
