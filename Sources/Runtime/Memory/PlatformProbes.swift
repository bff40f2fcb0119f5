/// The production memory and pressure probes for the platform this was built for: procfs,
/// cgroups and PSI on Linux; physical memory and no pressure monitoring elsewhere, so the
/// runtime still derives a budget. ONDEVICE_PORTABLE_CHECK takes the non-Linux choice on Linux
/// (scripts/check-portable.sh).
package enum PlatformProbes {
    package static func memory() -> any MemoryProbing {
        #if os(Linux) && !ONDEVICE_PORTABLE_CHECK
        LinuxMemoryProbe()
        #else
        PhysicalMemoryProbe()
        #endif
    }

    /// Nil where the platform has no pressure source the runtime can poll.
    package static func pressure() -> (any PressureProbing)? {
        #if os(Linux) && !ONDEVICE_PORTABLE_CHECK
        LinuxPressureProbe()
        #else
        nil
        #endif
    }
}
