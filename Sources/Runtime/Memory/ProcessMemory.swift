import CKernels
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process's memory as the kernel accounts it, from /proc/self/status (`Name:  <n> kB`
/// lines): resident set now and at its peak, split into anonymous (heap, KV caches) and file
/// (mapped weights) pages.
package struct ProcessMemory: Sendable, Equatable {
    /// VmRSS.
    package var residentBytes: Int
    /// VmHWM: the peak resident set since start (or since `resetPeak`).
    package var peakResidentBytes: Int
    /// RssAnon.
    package var anonymousBytes: Int
    /// RssFile.
    package var fileBytes: Int

    /// Reads /proc/self/status; nil where procfs is absent (Apple platforms).
    package static func current(root: String = "/") -> ProcessMemory? {
        guard let text = CgroupLocator.readSmallFile((root == "/" ? "" : root) + "/proc/self/status") else { return nil }
        func field(_ name: String) -> Int { LinuxMemoryProbe.parseMeminfo(text, field: name) ?? 0 }
        return ProcessMemory(residentBytes: field("VmRSS"), peakResidentBytes: field("VmHWM"),
                             anonymousBytes: field("RssAnon"), fileBytes: field("RssFile"))
    }

    /// Resets VmHWM to the current RSS (writes 5 to /proc/self/clear_refs), so a benchmark can
    /// measure the peak of one phase. Returns false where the kernel does not allow it.
    @discardableResult
    package static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// Asks glibc to return freed heap to the kernel. After a model is unloaded its tokenizer
    /// tables and caches are freed, but glibc keeps freed heap mapped unless trimmed, and RSS
    /// would then stay above what the cache charges. Looked up dynamically: other C libraries
    /// return memory on their own (and Darwin's RTLD_DEFAULT is not nil, so it stays off there).
    package static func returnFreedHeap() {
        #if os(Linux) && !ONDEVICE_PORTABLE_CHECK
        guard let symbol = dlsym(nil, "malloc_trim") else { return }  // nil is glibc's RTLD_DEFAULT
        typealias Trim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }

    /// glibc serves a large allocation with its own mapping and unmaps it on free, but by default
    /// it then raises that threshold to the freed size (up to 32 MiB), so the next model's
    /// buffers of that size come from the thread arenas instead, where freed memory stays
    /// fragmented and trimming cannot return it. Cycling three models under a budget, RSS then
    /// crept 25-65 MiB above what the cache charged and broke the budget; a 16-client server soak
    /// grew from 0.9 to 1.6 GB in 5 minutes. A fixed threshold (setting it turns the adjustment
    /// off) keeps every buffer of 1 MiB or more returnable.
    /// A `MALLOC_MMAP_THRESHOLD_` in the environment is the user's choice and stays.
    package static let heapMappingThreshold = 1 << 20

    /// Pins the threshold once per process (`od_return_large_freed_blocks`); true where it was
    /// set here. Every `Residency` does it when made, so every door's process has it.
    package static let pinnedHeapThreshold: Bool = {
        guard getenv("MALLOC_MMAP_THRESHOLD_") == nil else { return false }
        return od_return_large_freed_blocks(heapMappingThreshold) == 1
    }()
}
