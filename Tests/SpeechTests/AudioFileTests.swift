import Audio
import Foundation
import TestSupport
import Testing

/// Compressed audio in and out, checked against the reference command-line codecs from Debian
/// (flac, lame, oggenc, opusenc to make files we must read; flac, mpg123, opusdec to read the
/// files we write). Lossy codecs are held to a signal-to-noise ratio after aligning their delay.
@Suite struct AudioFileTests {
    static let speech = GoldenFiles.path("audio/p01_piper_weather.wav")

    /// Best-aligned SNR in dB of `decoded` against `reference` (same rate), searching the codec's
    /// delay within ±`maxLag` samples and fitting one gain.
    static func alignedSNR(_ reference: [Float], _ decoded: [Float], maxLag: Int = 4096) -> Double {
        let n = min(reference.count, decoded.count) - 2 * maxLag
        precondition(n > 0)
        var best = (lag: 0, score: -Double.infinity)
        for lag in -maxLag...maxLag {
            var dot = 0.0, energy = 0.0
            for i in stride(from: maxLag, to: maxLag + n, by: 4) {
                let y = Double(decoded[i + lag])
                dot += Double(reference[i]) * y
                energy += y * y
            }
            let score = energy > 0 ? dot / energy.squareRoot() : 0
            if score > best.score { best = (lag, score) }
        }
        var xy = 0.0, yy = 0.0, xx = 0.0
        for i in maxLag..<(maxLag + n) {
            let x = Double(reference[i]), y = Double(decoded[i + best.lag])
            xy += x * y; yy += y * y; xx += x * x
        }
        let gain = yy > 0 ? xy / yy : 0
        var noise = 0.0
        for i in maxLag..<(maxLag + n) {
            let e = Double(reference[i]) - gain * Double(decoded[i + best.lag])
            noise += e * e
        }
        return 10 * log10(xx / max(noise, 1e-20))
    }

    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("ondevice-audio-\(getpid())-\(name)").path
    }

    @Test(arguments: [
        ("flac", ["--silent", "--force", "-o"], "flac", 200.0),
        ("lame", ["--quiet", "-b", "64"], "mp3", 12.0),
        ("oggenc", ["--quiet", "-o"], "ogg", 12.0),
        ("opusenc", ["--quiet", "--bitrate", "32"], "opus", 10.0),
    ])
    func `files from the reference encoders decode to the speech they hold`(tool: String, flags: [String], ext: String, minimumSNR: Double) throws {
        let source = try WAVFile.read(path: Self.speech)
        let file = Self.temporary("in.\(ext)")
        defer { try? FileManager.default.removeItem(atPath: file) }
        // flac and oggenc take `-o OUT IN`; lame and opusenc take `IN OUT`.
        let args = flags.last == "-o" ? flags + [file, Self.speech] : flags + [Self.speech, file]
        let (status, output) = try ExternalTool.run(tool, args)
        try #require(status == 0, "\(tool) failed: \(output)")
        let clip = try AudioFile.read(path: file)
        let atSourceRate = try clip.resampled(to: source.sampleRate)
        #expect(abs(atSourceRate.duration - source.duration) < 0.1, "\(ext): \(atSourceRate.duration) s vs \(source.duration) s")
        if ext == "flac" {
            #expect(clip.samples.count == source.samples.count && clip.samples == source.samples, "FLAC is lossless")
        } else {
            let snr = Self.alignedSNR(source.samples, atSourceRate.samples)
            #expect(snr > minimumSNR, "\(ext): SNR \(snr) dB")
        }
    }

    @Test(arguments: [
        (AudioEncoding.flac, "flac", ["--silent", "--force", "-d", "-o"], 200.0),
        (AudioEncoding.mp3, "mpg123", ["--quiet", "-w"], 12.0),
        (AudioEncoding.opus, "opusdec", ["--quiet", "--rate", "48000"], 10.0),
    ])
    func `files we encode, whole or streamed, play in the reference decoders`(encoding: AudioEncoding, tool: String, flags: [String],
                                                                             minimumSNR: Double) throws {
        let source = try WAVFile.read(path: Self.speech)
        let whole = try AudioEncoder.encode(source, as: encoding)
        // Streamed as a server sends it: a piece per "sentence", the bytes each piece completes.
        let encoder = try AudioEncoder(encoding, sampleRate: source.sampleRate)
        var streamed: [UInt8] = []
        for start in stride(from: 0, to: source.samples.count, by: 17_000) {
            streamed += try encoder.encode(Array(source.samples[start..<min(start + 17_000, source.samples.count)]))
        }
        streamed += try encoder.finish()
        for (label, bytes) in [("whole", whole), ("streamed", streamed)] {
            let file = Self.temporary("out-\(label).\(encoding.rawValue)")
            let wav = file + ".wav"
            defer { for f in [file, wav] { try? FileManager.default.removeItem(atPath: f) } }
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            // flac takes `-d -o OUT IN`, mpg123 `-w OUT IN`, opusdec `IN OUT`.
            let args = flags.last == "-o" || flags.last == "-w" ? flags + [wav, file] : flags + [file, wav]
            let (status, output) = try ExternalTool.run(tool, args)
            try #require(status == 0, "\(tool) refused our \(label) \(encoding): \(output)")
            let decoded = try WAVFile.read(path: wav).resampled(to: source.sampleRate)
            // A streamed MP3 has no length tag, so decoders keep the encoder's delay and padding
            // (up to two 1152-sample frames).
            let slack = encoding == .mp3 && label == "streamed" ? 0.2 : 0.12
            #expect(abs(decoded.duration - source.duration) < slack, "\(label) \(encoding): \(decoded.duration) s vs \(source.duration) s")
            if encoding == .flac {
                #expect(decoded.samples.count == source.samples.count)
                let worst = zip(decoded.samples, source.samples).map { abs($0 - $1) }.max() ?? 1
                #expect(worst == 0, "\(label) FLAC round-trips 16-bit samples exactly (worst difference \(worst))")
            } else {
                let snr = Self.alignedSNR(source.samples, decoded.samples)
                #expect(snr > minimumSNR, "\(label) \(encoding): SNR \(snr) dB")
            }
            // And our own reader agrees with the reference decoder.
            let ours = try AudioFile.decode(bytes).resampled(to: source.sampleRate)
            #expect(abs(ours.duration - decoded.duration) < 0.06, "\(label) \(encoding): ours \(ours.duration) s, \(tool) \(decoded.duration) s")
        }
    }

    @Test func `streamed WAV and raw PCM carry the samples at their rates`() throws {
        let source = try WAVFile.read(path: Self.speech)
        let encoder = try AudioEncoder(.wav, sampleRate: source.sampleRate)
        let wav = try encoder.encode(Array(source.samples.prefix(30_000))) + encoder.encode(Array(source.samples.dropFirst(30_000)))
            + encoder.finish()
        let back = try AudioFile.decode(wav)
        #expect(back.sampleRate == source.sampleRate)
        #expect(back.samples.count == source.samples.count && back.samples == source.samples,
                "16-bit source samples come back exactly from the streamed WAV")
        let pcm = try AudioEncoder.encode(source, as: .pcm)
        #expect(pcm.count % 2 == 0)
        let samples = stride(from: 0, to: pcm.count, by: 2).map { Float(Int16(bitPattern: UInt16(pcm[$0]) | UInt16(pcm[$0 + 1]) << 8)) / 32768 }
        let expected = try source.resampled(to: 24_000)
        #expect(abs(samples.count - expected.samples.count) <= 1, "pcm is 24 kHz")
        #expect(Self.alignedSNR(expected.samples, samples, maxLag: 64) > 40)
    }

    @Test func `what is not audio is refused with a typed error`() throws {
        #expect(throws: AudioError.self) { try AudioFile.decode([]) }
        #expect(throws: AudioError.self) { try AudioFile.decode(Array("this is plainly text, not an audio file".utf8)) }
        var garbage = SeededGenerator(seed: 7)
        #expect(throws: AudioError.self) { try AudioFile.decode((0..<5000).map { _ in UInt8.random(in: 0...255, using: &garbage) }) }
        // A FLAC cut in half gives the first half or a typed error, never a crash; a bound on the
        // length is honoured.
        let source = try WAVFile.read(path: Self.speech)
        let flac = try AudioEncoder.encode(source, as: .flac)
        if let half = try? AudioFile.decode(Array(flac.prefix(flac.count / 2))) {
            #expect(half.samples.count < source.samples.count)
        }
        do {
            _ = try AudioFile.decode(flac, maximumSeconds: 1) as AudioClip
            Issue.record("a 4 s file passed a 1 s bound")
        } catch {
            guard case .tooLong(_, let limit) = error else { Issue.record("wrong error \(error)"); return }
            #expect(limit == 1)
        }
    }
}
