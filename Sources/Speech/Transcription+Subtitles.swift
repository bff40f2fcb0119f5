import Foundation

/// The subtitle files a transcription is written as: SubRip (numbered cues, `00:00:01,500`) and
/// WebVTT (a `WEBVTT` header, `00:00:01.500`). One writer for the CLI and the server.
package enum SubtitleFormat: Sendable {
    case srt
    case vtt
}

extension Transcription {
    /// Every segment as a cue, its text without Whisper's leading space.
    package func subtitles(_ format: SubtitleFormat) -> String {
        Self.subtitles(cues: segments.map { (start: $0.start, end: $0.end, text: $0.text) }, format)
    }

    /// Cues in `format`: one writer for every transcript type (the public API's too).
    package static func subtitles(cues: [(start: Double, end: Double, text: String)], _ format: SubtitleFormat) -> String {
        var out = format == .vtt ? "WEBVTT\n\n" : ""
        for (i, cue) in cues.enumerated() {
            if format == .srt { out += "\(i + 1)\n" }
            let comma = format == .srt
            out += "\(timestamp(cue.start, comma: comma)) --> \(timestamp(cue.end, comma: comma))\n"
            out += cue.text.trimmingCharacters(in: .whitespaces) + "\n\n"
        }
        return out
    }

    /// `HH:MM:SS,mmm` (SRT) or `HH:MM:SS.mmm` (WebVTT).
    package static func timestamp(_ seconds: Double, comma: Bool) -> String {
        let ms = Int((max(0, seconds) * 1000).rounded())
        return String(format: "%02d:%02d:%02d%@%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, comma ? "," : ".", ms % 1000)
    }
}
