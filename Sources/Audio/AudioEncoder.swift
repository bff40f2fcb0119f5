import CSndFile

/// The encodings speech is written in (the formats OpenAI's speech endpoint names, less AAC,
/// which no Debian library here encodes).
package enum AudioEncoding: String, CaseIterable, Sendable {
    /// 16-bit PCM WAV at the source rate. Streamed, so its sizes say "to the end of the file"
    /// (0xFFFFFFFF), as streaming writers mark them.
    case wav
    /// Raw 16-bit signed little-endian mono samples at 24 kHz, no header (OpenAI's `pcm`).
    case pcm
    /// FLAC, 16-bit, at the source rate.
    case flac
    /// MP3 (LAME through libsndfile) at the source rate when MPEG allows it, else 24 kHz.
    case mp3
    /// Opus in Ogg at 48 kHz (Opus takes 8, 12, 16, 24 or 48 kHz only).
    case opus

    package var mediaType: String {
        switch self {
        case .wav: "audio/wav"
        case .pcm: "audio/pcm"
        case .flac: "audio/flac"
        case .mp3: "audio/mpeg"
        case .opus: "audio/ogg; codecs=opus"
        }
    }

    /// The rate the output is written at, for audio at `rate`.
    package func outputRate(from rate: Int) -> Int {
        switch self {
        case .wav, .flac: rate
        case .pcm: 24_000
        case .opus: 48_000
        case .mp3: [8_000, 11_025, 12_000, 16_000, 22_050, 24_000, 32_000, 44_100, 48_000].contains(rate) ? rate : 24_000
        }
    }
}

/// Encodes mono float audio piece by piece, handing back the bytes each piece completes, so a
/// server can send speech while the rest is still being synthesized. WAV and PCM are written
/// here; FLAC, MP3 and Opus by libsndfile into memory (`SoundFileIO`).
package final class AudioEncoder {
    package let encoding: AudioEncoding
    package let inputRate: Int
    package let outputRate: Int
    private var resampler: Resampler?
    private let io = SoundFileIO()
    private var file: OpaquePointer?
    private var headerPending: Bool
    private var finished = false
    /// Whether `encode` hands back bytes as they are made; when false, everything comes from
    /// `finish`, after the codec has patched its header (MP3's length tag, FLAC's STREAMINFO).
    private let streaming: Bool

    package init(_ encoding: AudioEncoding, sampleRate: Int, streaming: Bool = true) throws(AudioError) {
        self.streaming = streaming
        guard Resampler.rates.contains(sampleRate) else { throw .invalidSampleRate(sampleRate) }
        self.encoding = encoding
        inputRate = sampleRate
        outputRate = encoding.outputRate(from: sampleRate)
        resampler = outputRate == sampleRate ? nil : try Resampler(from: sampleRate, to: outputRate)
        headerPending = encoding == .wav
        let format: Int32
        switch encoding {
        case .wav, .pcm: return
        case .flac: format = Int32(SF_FORMAT_FLAC | SF_FORMAT_PCM_16)
        case .mp3: format = Int32(SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III)
        case .opus: format = Int32(SF_FORMAT_OGG | SF_FORMAT_OPUS)
        }
        var info = SF_INFO()
        info.samplerate = Int32(outputRate)
        info.channels = 1
        info.format = format
        guard let file = io.open(mode: Int32(SFM_WRITE), info: &info) else {
            throw .encoding(format: encoding.rawValue, detail: SoundFileIO.lastError(nil))
        }
        self.file = file
        if encoding == .mp3 {
            // Constant bit rate: a stream has no length tag (it is written last, after the bytes
            // were sent), and readers then estimate the length from the first frame's bit rate,
            // which only a constant rate makes right.
            var mode = Int32(SF_BITRATE_MODE_CONSTANT)
            sf_command(file, Int32(SFC_SET_BITRATE_MODE), &mode, Int32(MemoryLayout<Int32>.size))
        }
    }

    deinit {
        if let file { sf_close(file) }
    }

    /// Encodes `samples` (at `inputRate`); returns the bytes ready so far (possibly none: codecs
    /// buffer whole frames).
    package func encode(_ samples: [Float]) throws(AudioError) -> [UInt8] {
        precondition(!finished, "encode after finish")
        return try write(resampler?.process(samples) ?? samples)
    }

    /// Flushes the codec and returns the last bytes. The encoder is done afterwards.
    package func finish() throws(AudioError) -> [UInt8] {
        precondition(!finished, "finish twice")
        var out = try write(resampler?.flush() ?? [])
        finished = true
        if let file {
            self.file = nil
            let status = sf_close(file)
            guard status == 0 else { throw .encoding(format: encoding.rawValue, detail: String(cString: sf_error_number(status))) }
            out += io.drain()
        }
        return out
    }

    /// A whole clip in `encoding`, its header complete.
    package static func encode(_ clip: AudioClip, as encoding: AudioEncoding) throws(AudioError) -> [UInt8] {
        if encoding == .wav { return WAVFile.encode(clip) }  // the length is known: a header that says it
        let encoder = try AudioEncoder(encoding, sampleRate: clip.sampleRate, streaming: false)
        return try encoder.encode(clip.samples) + encoder.finish()
    }

    private func write(_ samples: [Float]) throws(AudioError) -> [UInt8] {
        var out: [UInt8] = []
        if headerPending {
            headerPending = false
            out = WAVFile.streamingHeader(sampleRate: outputRate)
        }
        guard let file else {
            out.reserveCapacity(out.count + samples.count * 2)
            WAVFile.appendPCM16(samples, to: &out)
            return out
        }
        guard !samples.isEmpty else { return streaming ? out + io.drain() : out }
        // FLAC takes 16-bit samples rounded here exactly as WAV and PCM are (libsndfile's own
        // float conversion scales by 32767, ours and Piper's by 32768); the lossy codecs take floats.
        let written: sf_count_t
        if encoding == .flac {
            let pcm = samples.map(WAVFile.pcm16)
            written = pcm.withUnsafeBufferPointer { sf_writef_short(file, $0.baseAddress, sf_count_t($0.count)) }
        } else {
            written = samples.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t($0.count)) }
        }
        guard written == sf_count_t(samples.count) else {
            throw .encoding(format: encoding.rawValue, detail: SoundFileIO.lastError(file))
        }
        return streaming ? out + io.drain() : out
    }
}
