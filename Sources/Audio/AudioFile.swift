import CSndFile
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the audio files people hold: WAV by our own reader (`WAVFile`), and FLAC, Ogg Vorbis,
/// Ogg Opus and MP3 through libsndfile. The container is recognized from the bytes, never from a
/// file name. Channels are averaged to mono; the clip keeps the file's sample rate.
package enum AudioFile {
    /// Four hours: the longest audio decoded by default. A few megabytes of Opus can hold a day
    /// of speech, and a decoded hour at 48 kHz is 690 MB of floats, so the bound is explicit.
    package static let defaultMaximumSeconds = 4.0 * 3600

    /// Reads and decodes the audio file at `path`.
    package static func read(path: String, maximumSeconds: Double = defaultMaximumSeconds) throws(AudioError) -> AudioClip {
        try decode(try WAVFile.readBytes(path: path), maximumSeconds: maximumSeconds)
    }

    /// Decodes a whole audio file held in memory.
    package static func decode(_ bytes: [UInt8], maximumSeconds: Double = defaultMaximumSeconds) throws(AudioError) -> AudioClip {
        if bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) {
            let clip = try WAVFile.decode(bytes)
            if clip.duration > maximumSeconds { throw .tooLong(seconds: clip.duration, limit: maximumSeconds) }
            return clip
        }
        return try decodeCompressed(bytes, maximumSeconds: maximumSeconds)
    }

    /// The name of the container libsndfile found, for errors and metadata ("FLAC", "OGG", "MPEG").
    static func containerName(_ format32: Int32) -> String {
        let format = Int(format32)
        return switch format & SF_FORMAT_TYPEMASK {
        case SF_FORMAT_FLAC: "FLAC"
        case SF_FORMAT_OGG: (format & SF_FORMAT_SUBMASK) == SF_FORMAT_OPUS ? "Ogg Opus" : "Ogg Vorbis"
        case SF_FORMAT_MPEG: "MP3"
        case SF_FORMAT_WAV, SF_FORMAT_WAVEX, SF_FORMAT_RF64: "WAV"
        default: "format 0x" + String(format, radix: 16)
        }
    }

    private static func decodeCompressed(_ bytes: [UInt8], maximumSeconds: Double) throws(AudioError) -> AudioClip {
        guard !bytes.isEmpty else { throw .undecodable(detail: "the file is empty") }
        let io = SoundFileIO(reading: bytes)
        var info = SF_INFO()
        guard let file = io.open(mode: Int32(SFM_READ), info: &info) else {
            throw .undecodable(detail: "not a WAV, FLAC, Ogg (Vorbis, Opus) or MP3 file (\(SoundFileIO.lastError(nil)))")
        }
        defer { sf_close(file) }
        let rate = Int(info.samplerate)
        let channels = Int(info.channels)
        guard Resampler.rates.contains(rate) else { throw .invalidSampleRate(rate) }
        guard (1...64).contains(channels) else { throw .undecodable(detail: "\(containerName(info.format)) with \(channels) channels") }
        let limit = Int(maximumSeconds * Double(rate))
        // The declared length sizes the buffer when it is plausible; decoding still stops at the
        // real end, so a lying header neither truncates nor over-allocates beyond the limit.
        var samples: [Float] = []
        if info.frames > 0 && info.frames < Int64(limit) { samples.reserveCapacity(Int(info.frames)) }
        let block = 4096
        var buffer = [Float](repeating: 0, count: block * channels)
        while true {
            let got = Int(buffer.withUnsafeMutableBufferPointer { sf_readf_float(file, $0.baseAddress, sf_count_t(block)) })
            guard got > 0 else { break }
            if samples.count + got > limit {
                throw .tooLong(seconds: Double(samples.count + got) / Double(rate), limit: maximumSeconds)
            }
            if channels == 1 {
                samples += buffer[0..<got]
            } else {
                let scale = 1 / Float(channels)
                for f in 0..<got {
                    var sum: Float = 0
                    for c in 0..<channels { sum += buffer[f * channels + c] }
                    samples.append(sum * scale)
                }
            }
        }
        let error = sf_error(file)
        if error != Int32(SF_ERR_NO_ERROR) {
            throw .undecodable(detail: "\(containerName(info.format)) stream broken after \(samples.count) samples (\(SoundFileIO.lastError(file)))")
        }
        guard !samples.isEmpty else { throw .undecodable(detail: "\(containerName(info.format)) file holds no audio") }
        return AudioClip(samples: samples, sampleRate: rate)
    }
}
