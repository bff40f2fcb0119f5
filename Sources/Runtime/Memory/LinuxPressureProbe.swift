/// The production pressure probe: Linux PSI from /proc/pressure/memory and, where the process's
/// cgroup is v2, its own `memory.pressure` (same format, scoped to the cgroup) and `memory.events`.
/// The worse of the system-wide and cgroup PSI figures is reported.
///
/// PSI lines read `some avg10=0.00 avg60=0.00 avg300=0.00 total=0` and `full ...` (percentages;
/// total in microseconds). `memory.events` lines read `name count` (`low`, `high`, `max`, `oom`,
/// `oom_kill`, ...).
package struct LinuxPressureProbe: PressureProbing {
    package var locator: CgroupLocator

    package init(root: String = "/") { locator = CgroupLocator(root: root) }

    package func read() -> PressureReading {
        var reading = locator.read("/proc/pressure/memory").map(Self.parsePSI) ?? PressureReading()
        if let leaf = locator.memoryDirectories().first, leaf.version == .v2 {
            if let text = CgroupLocator.readSmallFile(leaf.path + "/memory.pressure") {
                let cgroup = Self.parsePSI(text)
                reading.someAvg10 = maxOptional(reading.someAvg10, cgroup.someAvg10)
                reading.fullAvg10 = maxOptional(reading.fullAvg10, cgroup.fullAvg10)
            }
            reading.events = CgroupLocator.readSmallFile(leaf.path + "/memory.events").map(Self.parseEvents)
        }
        return reading
    }

    package static func parsePSI(_ text: String) -> PressureReading {
        var reading = PressureReading()
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard let kind = fields.first else { continue }
            let avg10 = fields.dropFirst().first { $0.hasPrefix("avg10=") }.flatMap { Double($0.dropFirst(6)) }
            if kind == "some" { reading.someAvg10 = avg10 }
            if kind == "full" { reading.fullAvg10 = avg10 }
        }
        return reading
    }

    package static func parseEvents(_ text: String) -> CgroupMemoryEvents {
        var events = CgroupMemoryEvents()
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 2, let count = Int(fields[1]) else { continue }
            switch fields[0] {
            case "high": events.high = count
            case "max": events.max = count
            case "oom": events.oom = count
            case "oom_kill": events.oomKill = count
            default: break
            }
        }
        return events
    }
}

private func maxOptional(_ a: Double?, _ b: Double?) -> Double? {
    switch (a, b) {
    case let (x?, y?): max(x, y)
    default: a ?? b
    }
}
