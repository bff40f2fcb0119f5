import Foundation

/// What a soak found: per request kind the count, statuses and latency percentiles; the verdicts
/// the soak exists for (no 5xx, no transport failure, malformed requests refused, nothing leaked,
/// resident memory flat after warm-up); and the memory samples behind the last.
struct SoakReport {
    let seconds: Double
    let clients: Int
    let threads: Int
    let warmUp: Double
    let tally: [SoakRequests.Kind: SoakTally.Kind]
    let memory: [(seconds: Double, bytes: Int)]
    let leases: Int
    let queued: Int
    let sessionsInUse: Int

    /// Growth allowed from the first half's peak to the second half's (see `rss`).
    static let flatTolerance = 0.10

    func count(where predicate: (Int) -> Bool) -> Int {
        tally.values.reduce(0) { sum, kind in sum + kind.statuses.filter { predicate($0.key) }.reduce(0) { $0 + $1.value } }
    }

    var requests: Int { count { _ in true } }
    var serverErrors: Int { count { $0 >= 500 } }
    var transportFailures: Int { count { $0 == 0 } }
    /// Malformed requests the server accepted: each should have been a 4xx.
    var malformedAccepted: Int { tally[.malformed]?.statuses.filter { (200..<300).contains($0.key) }.reduce(0) { $0 + $1.value } ?? 0 }

    /// Resident memory after warm-up: the peak of the first and of the second half of the
    /// samples, and the last sample. A server's working set swings with the requests in flight
    /// (a transcription's buffers come and go), so flat means the swings stop climbing: the
    /// second half's peak within `flatTolerance` of the first's. Memory that leaks or fragments
    /// keeps setting new peaks.
    var rss: (firstHalfPeak: Int, secondHalfPeak: Int, last: Int) {
        let after = memory.filter { $0.seconds >= warmUp }.map(\.bytes)
        let first = after.prefix(after.count / 2).max() ?? 0
        return (first, after.suffix(after.count - after.count / 2).max() ?? first, memory.last?.bytes ?? 0)
    }

    var rssGrowth: Double {
        let r = rss
        return r.firstHalfPeak > 0 ? Double(r.secondHalfPeak - r.firstHalfPeak) / Double(r.firstHalfPeak) : 0
    }

    var verdicts: [(name: String, passed: Bool)] {
        [("no 5xx", serverErrors == 0),
         ("no transport failures", transportFailures == 0),
         ("malformed requests refused", malformedAccepted == 0),
         ("no leases, queued loads or text sessions left", leases == 0 && queued == 0 && sessionsInUse == 0),
         ("resident memory flat after warm-up (second half's peak within \(Int(Self.flatTolerance * 100)) % of the first's)",
          rss.firstHalfPeak > 0 && rssGrowth <= Self.flatTolerance)]
    }

    var passed: Bool { verdicts.allSatisfy(\.passed) }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    var text: String {
        let mib = { (bytes: Int) in String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        var lines = ["soak: \(clients) clients for \(Int(seconds)) s, \(threads) threads, \(requests) requests "
                     + String(format: "(%.1f/s)", Double(requests) / seconds)]
        lines.append("kind                       requests  statuses                    p50 s    p99 s")
        for kind in SoakRequests.Kind.allCases {
            guard let k = tally[kind] else { continue }
            let sorted = k.seconds.sorted()
            let statuses = k.statuses.sorted { $0.key < $1.key }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
            lines.append(kind.rawValue.padding(toLength: 27, withPad: " ", startingAt: 0)
                         + String(format: "%8d  ", sorted.count) + statuses.padding(toLength: 26, withPad: " ", startingAt: 0)
                         + String(format: "%7.2f  %7.2f", Self.percentile(sorted, 0.5), Self.percentile(sorted, 0.99)))
        }
        let r = rss
        lines.append("5xx: \(serverErrors)   transport failures: \(transportFailures)   malformed accepted: \(malformedAccepted)")
        lines.append("after the clients stopped: \(leases) leases, \(queued) queued loads, \(sessionsInUse) text sessions in use")
        lines.append("RSS after \(Int(warmUp)) s of warm-up, peak of the first half: \(mib(r.firstHalfPeak)), of the second: "
                     + "\(mib(r.secondHalfPeak)) " + String(format: "(%+.1f %%)", rssGrowth * 100) + ", last: \(mib(r.last))")
        for v in verdicts { lines.append("\(v.passed ? "pass" : "FAIL")  \(v.name)") }
        return lines.joined(separator: "\n")
    }

    var json: String {
        var kinds: [String: Any] = [:]
        for (kind, k) in tally {
            let sorted = k.seconds.sorted()
            kinds[kind.rawValue] = ["requests": sorted.count,
                                    "statuses": Dictionary(uniqueKeysWithValues: k.statuses.map { (String($0.key), $0.value) }),
                                    "p50_seconds": Self.percentile(sorted, 0.5), "p99_seconds": Self.percentile(sorted, 0.99)]
        }
        let r = rss
        let object: [String: Any] = [
            "seconds": seconds, "clients": clients, "threads": threads, "warm_up_seconds": warmUp, "requests": requests,
            "kinds": kinds, "server_errors": serverErrors, "transport_failures": transportFailures,
            "malformed_accepted": malformedAccepted, "leases_left": leases, "queued_left": queued,
            "text_sessions_in_use": sessionsInUse,
            "rss_bytes": ["first_half_peak": r.firstHalfPeak, "second_half_peak": r.secondHalfPeak, "last": r.last],
            "rss_samples": memory.map { ["seconds": $0.seconds, "bytes": $0.bytes] },
            "passed": passed,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
