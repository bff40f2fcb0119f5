import Audio
import Imaging

extension FuzzTarget {
    static let mediaTargets: [FuzzTarget] = [
        FuzzTarget("wav", "RIFF/WAVE chunks, PCM and float formats, resampling to 16 kHz", maxLength: 16 * 1024) { bytes in
            guard let clip = try? WAVFile.decode(Array(bytes)) else { return }
            // Resampling costs in proportion to the audio's length; a short clip exercises every path.
            if clip.samples.count <= 2048 { consume(try? clip.resampled(to: 16_000)) }
        },
        FuzzTarget("audio-file", "FLAC, Ogg Vorbis/Opus and MP3 through libsndfile (what uploads to /v1/audio/transcriptions reach)",
                   maxLength: 16 * 1024) { bytes in
            // A one-minute bound keeps a header that claims hours from allocating them.
            consume(try? AudioFile.decode(Array(bytes), maximumSeconds: 60))
        },
        FuzzTarget("image", "JPEG, PNG and TIFF-based raw files (EXIF, IFDs, embedded previews), pixels and metadata",
                   maxLength: 64 * 1024) { bytes in
            // A pixel cap keeps the fuzzer off multi-megapixel allocations a header can ask for.
            let decoder = ImageDecoder(maxPixels: 1 << 16)
            consume(try? decoder.decode(bytes: Array(bytes), file: "fuzz"))
            consume(try? decoder.decode(bytes: Array(bytes), file: "fuzz", minimumLongSide: 8))
        },
    ]
}
