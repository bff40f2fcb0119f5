import Audio
import Foundation

/// Encodes speech as it is synthesized: feed it each chunk of `synthesisStream`, send what it
/// returns, then send `finish()`. Formats that need the whole length in a header (WAV) mark it
/// "to the end of the stream", so every format streams.
///
/// ```swift
/// let encoder = try SpeechEncoder(.mp3)
/// for try await event in ai.synthesisStream(text) {
///     if case .audio(let chunk) = event { send(try encoder.encode(chunk)) }
/// }
/// send(try encoder.finish())
/// ```
public final class SpeechEncoder {
    public let format: AudioFormat
    private var encoder: AudioEncoder?

    public init(_ format: AudioFormat) {
        self.format = format
    }

    /// The bytes `chunk` completes (possibly none: codecs hold back a partial frame).
    public func encode(_ chunk: SpeechAudioChunk) throws -> Data {
        do {
            if encoder == nil { encoder = try AudioEncoder(format.encoding, sampleRate: chunk.sampleRate) }
            guard let encoder, encoder.inputRate == chunk.sampleRate else {
                throw OnDeviceError.invalidArgument("a speech stream changed its sample rate to \(chunk.sampleRate) Hz")
            }
            return Data(try encoder.encode(chunk.samples))
        } catch let error as AudioError {
            throw OnDeviceError.invalidArgument("\(format.rawValue): \(error)")
        }
    }

    /// The last bytes. A stream that never got a chunk yields nothing.
    public func finish() throws -> Data {
        guard let encoder else { return Data() }
        self.encoder = nil
        do { return Data(try encoder.finish()) } catch {
            throw OnDeviceError.invalidArgument("\(format.rawValue): \(error)")
        }
    }
}

extension SpeechAudio {
    /// The whole audio as a file in `format`.
    public func encoded(as format: AudioFormat) throws -> Data {
        do { return Data(try AudioEncoder.encode(AudioClip(samples: samples, sampleRate: sampleRate), as: format.encoding)) } catch {
            throw OnDeviceError.invalidArgument("\(format.rawValue): \(error)")
        }
    }
}
