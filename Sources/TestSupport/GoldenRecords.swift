import Foundation

/// Counts the golden records each suite checks and prints one line per suite when the test
/// process exits:
///
///     golden: <Suite> checked <N> records
///
/// `scripts/check-golden-counts.py` reads these lines from the test log and fails CI when a
/// golden suite printed none or checked zero records, so a suite cannot pass by checking nothing.
/// A record is one reference the suite compared against (a line of a `.jsonl`, an image, a
/// clip), counted once per configuration it is checked in (model, beam size, scale).
package enum GoldenRecords {
    /// Adds `count` records checked by `suite` (the suite's type, `Self.self` inside it).
    package static func checked<Suite>(_ count: Int = 1, in suite: Suite.Type) {
        tally.add(count, to: String(describing: suite))
    }

    /// The line printed for `suite`, in the form the check script greps.
    package static func line(suite: String, count: Int) -> String {
        "golden: \(suite) checked \(count) records"
    }

    private static let tally = Tally()

    /// The counts so far, by suite name. `@unchecked Sendable`: `counts` is read and written only
    /// under `lock`.
    private final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        private var registered = false

        func add(_ count: Int, to suite: String) {
            lock.lock()
            defer { lock.unlock() }
            counts[suite, default: 0] += count
            // Printed at exit: the test runner ends with exit(), after every suite has finished.
            if !registered {
                registered = true
                atexit { GoldenRecords.tally.printAll() }
            }
        }

        func printAll() {
            lock.lock()
            defer { lock.unlock() }
            for (suite, count) in counts.sorted(by: { $0.key < $1.key }) {
                print(GoldenRecords.line(suite: suite, count: count))
            }
        }
    }
}

/// Reads golden reference files, refusing a missing or empty one: a test over zero records
/// would pass without checking anything.
package enum GoldenFile {
    package enum ReadError: Error, CustomStringConvertible {
        case noRecords(path: String)
        case notAnObject(path: String, line: Int)

        package var description: String {
            switch self {
            case .noRecords(let path): "golden file \(path) has no records"
            case .notAnObject(let path, let line): "golden file \(path) line \(line) is not a JSON object"
            }
        }
    }

    /// One dictionary per line of the `.jsonl` file at `url`; throws if the file is missing,
    /// has no lines, or a line is not a JSON object.
    package static func lines(_ url: URL) throws -> [[String: Any]] {
        let text = try String(contentsOf: url, encoding: .utf8)
        let records = try text.split(separator: "\n").enumerated().map { n, line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw ReadError.notAnObject(path: url.path, line: n + 1)
            }
            return object
        }
        guard !records.isEmpty else { throw ReadError.noRecords(path: url.path) }
        return records
    }

    /// The JSON object in the file at `url`; throws if it is missing or not an object.
    package static func object(_ url: URL) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
            throw ReadError.notAnObject(path: url.path, line: 1)
        }
        return object
    }
}
