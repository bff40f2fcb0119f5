/// `strftime` in the C locale for the directives chat templates use: `%Y %y %m %d %e %j %H %I
/// %M %S %p %a %A %b %B %u %w %F %D %T %R %c %x %X %%`, and glibc's `%-d`-style unpadded
/// forms. Unknown directives are copied through.
enum Strftime {
    static let weekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                         "October", "November", "December"]

    static func format(_ format: String, _ t: JinjaDateTime) -> String {
        var out = ""
        var chars = Array(format)[...]
        func pad(_ v: Int, _ width: Int = 2, _ filler: Character = "0", unpadded: Bool) -> String {
            let s = String(v)
            return unpadded || s.count >= width ? s : String(repeating: filler, count: width - s.count) + s
        }
        while let c = chars.first {
            chars = chars.dropFirst()
            guard c == "%", let next = chars.first else { out.append(c); continue }
            chars = chars.dropFirst()
            var directive = next
            var unpadded = false
            if directive == "-", let d = chars.first {
                unpadded = true
                directive = d
                chars = chars.dropFirst()
            }
            let hour12 = t.hour % 12 == 0 ? 12 : t.hour % 12
            switch directive {
            case "Y": out += String(t.year)
            case "y": out += pad(t.year % 100, unpadded: unpadded)
            case "m": out += pad(t.month, unpadded: unpadded)
            case "d": out += pad(t.day, unpadded: unpadded)
            case "e": out += pad(t.day, 2, " ", unpadded: unpadded)
            case "j": out += pad(t.dayOfYear, 3, unpadded: unpadded)
            case "H": out += pad(t.hour, unpadded: unpadded)
            case "I": out += pad(hour12, unpadded: unpadded)
            case "M": out += pad(t.minute, unpadded: unpadded)
            case "S": out += pad(t.second, unpadded: unpadded)
            case "p": out += t.hour < 12 ? "AM" : "PM"
            case "a": out += String(weekdays[t.weekday].prefix(3))
            case "A": out += weekdays[t.weekday]
            case "b", "h": out += String(months[t.month - 1].prefix(3))
            case "B": out += months[t.month - 1]
            case "u": out += String(t.weekday + 1)
            case "w": out += String((t.weekday + 1) % 7)
            case "F": out += Self.format("%Y-%m-%d", t)
            case "D", "x": out += Self.format("%m/%d/%y", t)
            case "T", "X": out += Self.format("%H:%M:%S", t)
            case "R": out += Self.format("%H:%M", t)
            case "c": out += Self.format("%a %b %e %H:%M:%S %Y", t)
            case "%": out += "%"
            case "Z", "z": break
            default: out += "%" + (unpadded ? "-" : "") + String(directive)
            }
        }
        return out
    }
}
