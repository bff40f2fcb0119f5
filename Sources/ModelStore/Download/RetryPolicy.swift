import Foundation

/// When and how long to wait before retrying a failed transfer.
package struct RetryPolicy: Sendable, Equatable {
    /// Failed attempts in a row (without a byte of progress between them) before giving up.
    package var maxAttempts: Int
    /// Backoff before the first retry; doubles per failed attempt up to `maxDelay`.
    package var baseDelay: Double
    package var maxDelay: Double
    /// Ceiling on a server's Retry-After, so a hostile value cannot park a download for days.
    package var maxRetryAfter: Double

    package init(maxAttempts: Int = 8, baseDelay: Double = 0.5, maxDelay: Double = 30, maxRetryAfter: Double = 300) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// Delay before retry number `attempt` (1-based). Honours Retry-After when the server sent it;
    /// otherwise "equal jitter": half the exponential step plus a random half, so clients that
    /// failed together do not retry together, yet never retry immediately.
    package func delay(attempt: Int, retryAfter: Double?, unitRandom: Double) -> Double {
        if let retryAfter { return min(max(retryAfter, 0), maxRetryAfter) }
        let step = min(maxDelay, baseDelay * pow(2, Double(max(0, attempt - 1))))
        return step / 2 + step / 2 * min(max(unitRandom, 0), 1)
    }

    /// Parses Retry-After: delta seconds, or an HTTP-date (RFC 9110 §10.2.3) relative to `now`.
    package static func parseRetryAfter(_ value: String, now: Date = Date()) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// Waits between retries. A protocol so tests record the delays instead of sleeping.
package protocol Sleeping: Sendable {
    func sleep(seconds: Double) async throws(StoreError)
}

/// The real sleeper; cancellation ends the wait with `.cancelled`.
package struct TaskSleeper: Sleeping {
    package init() {}
    package func sleep(seconds: Double) async throws(StoreError) {
        do { try await Task.sleep(for: .seconds(seconds)) } catch { throw .cancelled }
    }
}
