/// The production memory probe: `MemAvailable` from /proc/meminfo and the cgroup limit and usage
/// of every level from this process's cgroup up (v2 `memory.max` / `memory.current`, or v1
/// `memory.limit_in_bytes` / `memory.usage_in_bytes`).
///
/// /proc/meminfo lines read `Name:   <value> kB`; cgroup v2 limits are a decimal byte count or
/// `max`; v1 reports "no limit" as a page-rounded 2^63 - 1, so anything at or above 2^62 counts as
/// unlimited.
package struct LinuxMemoryProbe: MemoryProbing {
    package var locator: CgroupLocator

    package init(root: String = "/") { locator = CgroupLocator(root: root) }

    package func snapshot() -> MemorySnapshot {
        var result = MemorySnapshot()
        result.memAvailable = locator.read("/proc/meminfo").flatMap { Self.parseMeminfo($0, field: "MemAvailable") }
        for dir in locator.memoryDirectories() {
            let (limitFile, usageFile) = dir.version == .v2
                ? ("memory.max", "memory.current") : ("memory.limit_in_bytes", "memory.usage_in_bytes")
            guard let limit = CgroupLocator.readSmallFile(dir.path + "/" + limitFile).flatMap(Self.parseLimit),
                  let usage = CgroupLocator.readSmallFile(dir.path + "/" + usageFile).flatMap(Self.parseLimit) else { continue }
            let headroom = max(0, limit - usage)
            if result.cgroupHeadroom.map({ headroom < $0 }) ?? true {
                result.cgroupHeadroom = headroom
                result.cgroupLimit = limit
            }
        }
        return result
    }

    /// A `kB` field of /proc/meminfo, in bytes.
    package static func parseMeminfo(_ text: String, field: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let parts = line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let value = parts.first.flatMap({ Int($0) }), value >= 0 else { return nil }
            let unit = parts.count > 1 ? parts[1] : ""
            return unit == "kB" ? value * 1024 : value
        }
        return nil
    }

    /// A cgroup byte count; nil for "max" and v1's "unlimited" sentinel.
    package static func parseLimit(_ text: String) -> Int? {
        let trimmed = text.split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
        guard let value = Int(trimmed), value >= 0, value < 1 << 62 else { return nil }
        return value
    }
}
