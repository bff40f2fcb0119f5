#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A wall-clock date and time for `strftime_now` (transformers renders
/// `datetime.now().strftime(format)`: local time, no time zone). Injected so renders are
/// reproducible in tests.
package struct JinjaDateTime: Sendable, Equatable {
    /// The year, e.g. 2025.
    package var year: Int
    /// 1 … 12.
    package var month: Int
    /// 1 … 31.
    package var day: Int
    /// 0 … 23.
    package var hour: Int
    /// 0 … 59.
    package var minute: Int
    /// 0 … 59.
    package var second: Int

    /// A date and time; month and day are 1-based.
    package init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The current local time.
    package static func now() -> JinjaDateTime {
        var t = time(nil)
        var parts = tm()
        localtime_r(&t, &parts)
        return JinjaDateTime(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
                             hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec))
    }

    /// Days since 1970-01-01 (Howard Hinnant's `days_from_civil`).
    var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// 0 = Monday … 6 = Sunday (Python's `weekday()`).
    var weekday: Int { ((daysSinceEpoch % 7) + 7 + 3) % 7 }

    /// 1-based day of the year.
    var dayOfYear: Int {
        daysSinceEpoch - JinjaDateTime(year: year, month: 1, day: 1).daysSinceEpoch + 1
    }
}
