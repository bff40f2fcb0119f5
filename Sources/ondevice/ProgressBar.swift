import Foundation
import ModelStore

/// A one-line download progress bar on stderr, drawn only when stderr is a terminal.
final class ProgressBar: Sendable {
    let label: String
    let enabled = isatty(STDERR_FILENO) != 0

    init(label: String) { self.label = label }

    func update(_ p: PullProgress) {
        guard enabled else { return }
        let total = p.totalBytes ?? 0
        let fraction = total > 0 ? min(1, Double(p.receivedBytes) / Double(total)) : 0
        let width = 30
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let rate = p.bytesPerSecond / 1_048_576
        let eta = p.etaSeconds.map { String(format: " ETA %.0fs", $0) } ?? ""
        let line = String(format: "\r%@ %@ %5.1f%% %.1f/%.1f MiB %.1f MiB/s%@\u{1B}[K", label, bar, fraction * 100,
                          Double(p.receivedBytes) / 1_048_576, Double(total) / 1_048_576, rate, eta)
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
