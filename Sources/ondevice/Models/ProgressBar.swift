import Foundation
import OnDevice
import Platform

/// A one-line download progress bar on stderr, drawn only when stderr is a terminal. Labelled
/// with the model id from the events unless given a label; a new id starts a new line (prefetch
/// pulls several models one after another).
final class ProgressBar: Sendable {
    let label: String?
    let enabled = isatty(STDERR_FILENO) != 0
    /// Id of the model on the current line, nil before the first event.
    private let currentId = Locked<String?>(nil)

    init(label: String? = nil) { self.label = label }

    func update(_ p: DownloadProgress) {
        guard enabled else { return }
        let newLine = currentId.withLock { current in
            defer { current = p.model }
            return current != nil && current != p.model
        }
        let fraction = p.totalBytes.map { $0 > 0 ? min(1, Double(p.receivedBytes) / Double($0)) : 0 }
        let width = 30
        let filled = Int((fraction ?? 0) * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let percent = fraction.map { String(format: "%5.1f%%", $0 * 100) } ?? "  ?  %"
        let amount = p.totalBytes.map { String(format: "%.1f/%.1f MiB", Double(p.receivedBytes) / 1_048_576, Double($0) / 1_048_576) }
            ?? String(format: "%.1f MiB", Double(p.receivedBytes) / 1_048_576)
        let eta = p.etaSeconds.map { String(format: " ETA %.0fs", $0) } ?? ""
        let line = String(format: "%@\r%@ %@ %@ %@ %.1f MiB/s%@\u{1B}[K", newLine ? "\n" : "", label ?? p.model, bar, percent,
                          amount, p.bytesPerSecond / 1_048_576, eta)
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        guard enabled, currentId.withLock({ $0 != nil }) else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
