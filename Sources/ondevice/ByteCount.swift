/// Human-readable byte counts for tables: binary units, one decimal.
enum ByteCount {
    static func text(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while abs(value) >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }

    static func text(_ bytes: Int64?) -> String { bytes.map { text($0) } ?? "?" }
}
