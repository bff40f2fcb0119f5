import Foundation

/// What a photo's EXIF says about how to show it and when it was taken.
package struct PhotoMetadata: Sendable, Equatable {
    package var orientation: ExifOrientation
    package var captureTime: CaptureTime?

    package init(orientation: ExifOrientation = .up, captureTime: CaptureTime? = nil) {
        self.orientation = orientation
        self.captureTime = captureTime
    }
}

/// EXIF DateTimeOriginal (0x9003, "YYYY:MM:DD HH:MM:SS") with SubSecTimeOriginal (0x9291, digits
/// of a decimal fraction) and, when present, OffsetTimeOriginal (0x9011, "+HH:MM").
package struct CaptureTime: Sendable, Equatable, Comparable {
    /// The written text, "YYYY:MM:DD HH:MM:SS".
    package let dateTime: String
    /// Seconds since 1970-01-01T00:00:00 of the written wall-clock time plus the sub-second
    /// fraction, minus the UTC offset when one was recorded (else the wall clock is taken as UTC:
    /// differences between shots of one camera are still right, which is what bursts need).
    package let seconds: Double

    package init?(dateTime: String, subsecond: String? = nil, offset: String? = nil) {
        let digits = dateTime.split(whereSeparator: { $0 == ":" || $0 == " " }).map { Int($0) }
        guard digits.count == 6, let y = digits[0], let mo = digits[1], let d = digits[2],
              let h = digits[3], let mi = digits[4], let s = digits[5],
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        var total = Double(Self.daysSinceEpoch(year: y, month: mo, day: d) * 86_400 + h * 3600 + mi * 60 + s)
        if let sub = subsecond?.trimmingCharacters(in: .whitespaces), !sub.isEmpty,
           sub.allSatisfy(\.isNumber), let value = Double(sub) {
            total += value / pow(10, Double(sub.count))
        }
        if let offset, offset.count == 6, let sign = offset.first, sign == "+" || sign == "-" {
            let parts = offset.dropFirst().split(separator: ":").compactMap { Int($0) }
            if parts.count == 2 {
                total -= Double(sign == "-" ? -1 : 1) * Double(parts[0] * 3600 + parts[1] * 60)
            }
        }
        self.dateTime = dateTime
        self.seconds = total
    }

    package static func < (a: CaptureTime, b: CaptureTime) -> Bool { a.seconds < b.seconds }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's days_from_civil).
    static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
