import Audio
import Foundation
import TestSupport
import Testing

@Suite struct WAVFileTests {
    /// A WAV file with one `fmt ` chunk and the given interleaved sample bytes.
    static func wav(tag: UInt16, channels: UInt16, rate: UInt32, bits: UInt16, data: [UInt8],
                    extraChunk: Bool = false, declaredData: UInt32? = nil) -> [UInt8] {
        var out: [UInt8] = []
        func u16(_ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { out += (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        out += Array("RIFF".utf8); u32(0); out += Array("WAVE".utf8)
        if extraChunk { out += Array("LIST".utf8); u32(3); out += [1, 2, 3, 0] }
        out += Array("fmt ".utf8); u32(16); u16(tag); u16(channels); u32(rate)
        let block = channels * bits / 8
        u32(rate * UInt32(block)); u16(block); u16(bits)
        out += Array("data".utf8); u32(declaredData ?? UInt32(data.count)); out += data
        return out
    }

    @Test func `PCM16 mono decodes to samples over 32768`() throws {
        let data: [UInt8] = [0x00, 0x40, 0x00, 0x80, 0xFF, 0x7F]
        let clip = try WAVFile.decode(Self.wav(tag: 1, channels: 1, rate: 8000, bits: 16, data: data))
        #expect(clip.sampleRate == 8000)
        #expect(clip.samples == [0.5, -1, 32767 / 32768])
    }

    @Test func `PCM24 stereo is averaged and odd chunks are skipped with their pad byte`() throws {
        // Frame 1: L = 0x400000 (0.5), R = 0 → 0.25; frame 2: L = -0.5, R = -0.5 → -0.5.
        let data: [UInt8] = [0, 0, 0x40, 0, 0, 0, 0, 0, 0xC0, 0, 0, 0xC0]
        let clip = try WAVFile.decode(Self.wav(tag: 1, channels: 2, rate: 44_100, bits: 24, data: data, extraChunk: true))
        #expect(clip.samples == [0.25, -0.5])
    }

    @Test func `PCM32 and float32 with three channels downmix to one`() throws {
        let pcm32: [UInt8] = [0, 0, 0, 0x40, 0, 0, 0, 0xC0, 0, 0, 0, 0]
        let a = try WAVFile.decode(Self.wav(tag: 1, channels: 3, rate: 48_000, bits: 32, data: pcm32))
        #expect(a.samples == [(0.5 - 0.5 + 0) / 3])
        var f32: [UInt8] = []
        for v: Float in [0.75, 0.25, -0.25] { withUnsafeBytes(of: v.bitPattern.littleEndian) { f32 += $0 } }
        let b = try WAVFile.decode(Self.wav(tag: 3, channels: 3, rate: 48_000, bits: 32, data: f32))
        #expect(abs(b.samples[0] - 0.25) < 1e-7)
    }

    @Test func `writing and reading back round-trips PCM16 and float32`() throws {
        let clip = AudioClip(samples: [0, 0.5, -0.25, 0.999, -1], sampleRate: 22_050)
        let f = try WAVFile.decode(WAVFile.encode(clip, format: .float32))
        #expect(f == clip)
        let p = try WAVFile.decode(WAVFile.encode(clip, format: .pcm16))
        #expect(p.sampleRate == 22_050)
        for (x, y) in zip(p.samples, clip.samples) { #expect(abs(x - y) <= 1 / 32768) }
    }

    @Test func `every golden clip reads with the sample count clips.jsonl gives`() throws {
        let records = try GoldenFiles.lines("audio/clips.jsonl")
        for record in records {
            let clip = try WAVFile.read(path: GoldenFiles.path(record.string("file")))
            #expect(clip.sampleRate == record.int("sample_rate"))
            #expect(clip.samples.count == record.int("n_samples"))
            let peak = clip.samples.map { abs($0) }.max() ?? 0
            #expect(peak == Float(record.int("peak")) / 32768)
        }
        GoldenRecords.checked(records.count, in: Self.self)
    }

    @Test func `a truncated data chunk is a typed error`() throws {
        let full = Self.wav(tag: 1, channels: 1, rate: 16_000, bits: 16, data: [UInt8](repeating: 1, count: 100))
        #expect(throws: AudioError.truncated(chunk: "data", offset: 44, needed: 100, fileSize: 94)) {
            try WAVFile.decode(Array(full.prefix(94)))
        }
        #expect(throws: AudioError.missingChunk("data")) { try WAVFile.decode(Array(full.prefix(36))) }
        #expect(throws: AudioError.truncated(chunk: "chunk header", offset: 36, needed: 8, fileSize: 40)) {
            try WAVFile.decode(Array(full.prefix(40)))
        }
        #expect(throws: AudioError.self) { try WAVFile.decode(Array(full.prefix(30))) }
    }

    @Test func `garbage and unsupported files are typed errors`() throws {
        #expect(throws: AudioError.notWAV(found: Array("hello world!".utf8))) {
            try WAVFile.decode(Array("hello world! this is not audio".utf8))
        }
        #expect(throws: AudioError.notWAV(found: [1, 2])) { try WAVFile.decode([1, 2]) }
        #expect(throws: AudioError.unsupportedEncoding(formatTag: 2, bitsPerSample: 4)) {
            try WAVFile.decode(Self.wav(tag: 2, channels: 1, rate: 8000, bits: 4, data: [0, 0]))
        }
        #expect(throws: AudioError.invalidFormat(detail: "zero channels")) {
            try WAVFile.decode(Self.wav(tag: 1, channels: 0, rate: 8000, bits: 16, data: [0, 0]))
        }
        #expect(throws: AudioError.self) { try WAVFile.read(path: "/nonexistent/file.wav") }
        var seeded = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            var bytes = Self.wav(tag: 1, channels: 1, rate: 16_000, bits: 16, data: [UInt8](repeating: 9, count: 64))
            for _ in 0..<4 { bytes[Int.random(in: 0..<44, using: &seeded)] = UInt8.random(in: 0...255, using: &seeded) }
            // Random header damage either decodes or throws a typed error; it never traps.
            _ = try? WAVFile.decode(bytes)
        }
    }

    @Test func `a streamed data size of 0xFFFFFFFF reads to the end of the file`() throws {
        let bytes = Self.wav(tag: 1, channels: 1, rate: 16_000, bits: 16, data: [0, 0x40, 0, 0x40], declaredData: 0xFFFF_FFFF)
        #expect(try WAVFile.decode(bytes).samples == [0.5, 0.5])
    }
}
