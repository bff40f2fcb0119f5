import CLISupport
import Foundation
import OnDevice

/// `ondevice transcribe --stream`: prints a live transcription's partial text (rewritten in
/// place on a terminal) and final text as it comes; `--json` prints one JSON object per event.
enum StreamTranscription {
    static func run(_ events: AsyncThrowingStream<LiveTranscriptEvent, Error>, json: Bool) async throws {
        let tty = isatty(STDOUT_FILENO) != 0 && !json
        var shownPartial = false
        for try await event in events {
            switch event {
            case .partial(let text):
                if json { try printJSON(["type": "partial", "text": text]) } else if tty {
                    writeOut("\r\u{1B}[2K\u{1B}[2m" + text + "\u{1B}[0m")
                    shownPartial = true
                }
            case let .final(text, start, end):
                if json {
                    try printJSON(["type": "final", "text": text, "start": start, "end": end])
                } else {
                    if shownPartial { writeOut("\r\u{1B}[2K") }
                    writeOut(String(format: "[%7.2f → %7.2f]", start, end) + text + "\n")
                    shownPartial = false
                }
            case .finished(let m):
                let summary: [String: Any] = [
                    "type": "finished", "passes": m.passes, "audio_seconds": m.audioSeconds, "compute_seconds": m.computeSeconds,
                    "mean_partial_latency": m.meanPartialLatency, "max_partial_latency": m.maxPartialLatency,
                ]
                if json {
                    try printJSON(summary)
                } else {
                    if shownPartial { writeOut("\r\u{1B}[2K") }
                    FileHandle.standardError.write(Data(String(
                        format: "[%d passes, %.1f s audio, %.1f s compute, partial latency mean %.2f s, max %.2f s]\n",
                        m.passes, m.audioSeconds, m.computeSeconds, m.meanPartialLatency, m.maxPartialLatency).utf8))
                }
            }
        }
    }
}
