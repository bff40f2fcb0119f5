import Foundation
import Kernels
import Runtime
import Testing
import TestSupport

/// The probes against fake /proc and cgroupfs trees (and the real machine where it answers).
@Suite struct MemoryProbeTests {
    /// Writes `files` (path → content) under a fresh directory.
    func tree(_ files: [String: String]) throws -> TemporaryDirectory {
        let dir = try TemporaryDirectory(prefix: "probe")
        for (path, content) in files {
            let full = dir.path + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try content.write(toFile: full, atomically: true, encoding: .utf8)
        }
        return dir
    }

    let meminfo = "MemTotal:       24683656 kB\nMemFree:        20392524 kB\nMemAvailable:    8000000 kB\n"

    @Test func `cgroup v2: the tightest ancestor limit minus its usage bounds MemAvailable`() throws {
        let dir = try tree([
            "/proc/meminfo": meminfo,
            "/proc/self/cgroup": "0::/user.slice/app.scope\n",
            "/proc/self/mountinfo": "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev - cgroup2 cgroup2 rw,nsdelegate\n",
            "/sys/fs/cgroup/user.slice/app.scope/memory.max": "max\n",
            "/sys/fs/cgroup/user.slice/app.scope/memory.current": "1000\n",
            "/sys/fs/cgroup/user.slice/memory.max": "5000000\n",
            "/sys/fs/cgroup/user.slice/memory.current": "3000000\n",
            "/sys/fs/cgroup/memory.current": "9000000\n",
        ])
        let snapshot = LinuxMemoryProbe(root: dir.path).snapshot()
        #expect(snapshot.memAvailable == 8_000_000 * 1024)
        #expect(snapshot.cgroupLimit == 5_000_000)
        #expect(snapshot.cgroupHeadroom == 2_000_000)
        #expect(snapshot.available == 2_000_000)
        #expect(MemoryBudgetPolicy(fraction: 0.5).budget(snapshot: snapshot) == 1_000_000)
    }

    @Test func `cgroup v1: the unlimited sentinel is ignored and a parent limit applies`() throws {
        let dir = try tree([
            "/proc/meminfo": meminfo,
            "/proc/self/cgroup": "9:name=systemd:/\n4:memory:/process_api/job\n0::/\n",
            "/proc/self/mountinfo": """
                31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
                35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
                41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw

                """,
            "/sys/fs/cgroup/memory/process_api/job/memory.limit_in_bytes": "9223372036854771712\n",
            "/sys/fs/cgroup/memory/process_api/job/memory.usage_in_bytes": "3174400\n",
            "/sys/fs/cgroup/memory/process_api/memory.limit_in_bytes": "4096000\n",
            "/sys/fs/cgroup/memory/process_api/memory.usage_in_bytes": "1096000\n",
        ])
        let snapshot = LinuxMemoryProbe(root: dir.path).snapshot()
        #expect(snapshot.cgroupLimit == 4_096_000)
        #expect(snapshot.cgroupHeadroom == 3_000_000)
        #expect(snapshot.available == 3_000_000)
    }

    @Test func `without a cgroup limit MemAvailable is the base; without procfs a safe fallback`() throws {
        let dir = try tree(["/proc/meminfo": meminfo])
        #expect(LinuxMemoryProbe(root: dir.path).snapshot() == MemorySnapshot(memAvailable: 8_192_000_000))
        let empty = try tree([:])
        #expect(MemoryBudgetPolicy().budget(snapshot: LinuxMemoryProbe(root: empty.path).snapshot()) == MemoryBudgetPolicy.fallbackBytes)
    }

    @Test func `the resident bytes the runtime holds count towards the budget base`() {
        let policy = MemoryBudgetPolicy(fraction: 0.5)
        #expect(policy.budget(snapshot: MemorySnapshot(memAvailable: 1000), residentBytes: 600) == 800)
        #expect(MemoryBudgetPolicy(fraction: 7).fraction == 1)
    }

    /// Every residency pins glibc's large-block threshold so freed model buffers go back to the
    /// system (`ProcessMemory.pinnedHeapThreshold`). The setting hides behind a C-library test in
    /// CKernels' heap.c; under glibc it must take effect, or RSS would creep past the budget again
    /// without a sign (its first version silently did nothing).
    @Test func `a residency pins the heap's large-block threshold under glibc`() {
        _ = Residency()
        #if os(Linux)
        #expect(ProcessMemory.pinnedHeapThreshold == (getenv("MALLOC_MMAP_THRESHOLD_") == nil))
        #else
        #expect(!ProcessMemory.pinnedHeapThreshold)
        #endif
    }

    @Test func `the real machine reports MemAvailable`() {
        #expect((LinuxMemoryProbe().snapshot().memAvailable ?? 0) > 0)
        #expect((ProcessMemory.current()?.peakResidentBytes ?? 0) > 0)
    }

    @Test func `PSI and cgroup events are parsed and classified by thresholds and new events`() throws {
        let psi = "some avg10=12.50 avg60=3.00 avg300=1.00 total=12345\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
        let dir = try tree([
            "/proc/pressure/memory": psi,
            "/proc/self/cgroup": "0::/app\n",
            "/proc/self/mountinfo": "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
            "/sys/fs/cgroup/app/memory.current": "1\n",
            "/sys/fs/cgroup/app/memory.pressure": "some avg10=4.00 avg60=0 avg300=0 total=1\nfull avg10=11.00 avg60=0 avg300=0 total=1\n",
            "/sys/fs/cgroup/app/memory.events": "low 0\nhigh 3\nmax 1\noom 0\noom_kill 0\n",
        ])
        let reading = LinuxPressureProbe(root: dir.path).read()
        #expect(reading == PressureReading(someAvg10: 12.5, fullAvg10: 11, events: CgroupMemoryEvents(high: 3, max: 1)))

        var classifier = PressureClassifier()
        #expect(classifier.classify(PressureReading(someAvg10: 1, fullAvg10: 0)) == .normal)
        #expect(classifier.classify(PressureReading(someAvg10: 12, fullAvg10: 0)) == .warning)
        #expect(classifier.classify(PressureReading(someAvg10: 60, fullAvg10: 0)) == .critical)
        #expect(classifier.classify(PressureReading(someAvg10: 0, fullAvg10: 15)) == .critical)
        // Event counters: the first reading is the baseline; only increases count.
        #expect(classifier.classify(PressureReading(events: CgroupMemoryEvents(high: 5, max: 2))) == .normal)
        #expect(classifier.classify(PressureReading(events: CgroupMemoryEvents(high: 6, max: 2))) == .warning)
        #expect(classifier.classify(PressureReading(events: CgroupMemoryEvents(high: 6, max: 2, oomKill: 1))) == .critical)
        #expect(classifier.classify(PressureReading(events: CgroupMemoryEvents(high: 6, max: 2, oomKill: 1))) == .normal)
    }

    @Test func `the pressure monitor polls on the clock and drives the cache`() async throws {
        let clock = ManualClock()
        let events = EventBus<RuntimeEvent>()
        let residency = Residency(policy: MemoryBudgetPolicy(overrideBytes: 1000), keepAlive: .forever,
                                  memoryProbe: FixedMemoryProbe(MemorySnapshot()), clock: clock, events: events)
        try await residency.lease(FakeLoader("idle", bytes: 100)).release()
        let probe = ScriptedPressure([PressureReading(someAvg10: 0), PressureReading(someAvg10: 20)])
        let subscription = events.subscribe()
        let monitor = Task { await PressureMonitor(probe: probe, interval: .seconds(2)).run(clock: clock, residency: residency) }
        defer { monitor.cancel() }
        while clock.sleeperCount == 0 { await Task.yield() }  // first poll (normal) done
        #expect(await residency.snapshot().modelIds == ["idle"])
        clock.advance(by: .seconds(2))
        let event = await nextEvent(subscription) { $0.unloadedId != nil }
        #expect(event == .evicted(modelId: "idle", bytes: 100, reason: .pressure(.warning)))
    }

    @Test func `cpu flags come from cpuinfo and never make a model unsupported`() {
        let x86 = "processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma f16c\n\nprocessor\t: 1\nflags\t\t: fpu\n"
        let cpu = CPUFeatures(architecture: "x86_64", flags: CPUFeatures.parseFlags(x86), cores: 2)
        #expect(cpu.flags == ["avx", "avx2", "f16c", "fma", "fpu", "sse2"])
        #expect(cpu.kernelPath == "avx2")
        #expect(CPUFeatures(architecture: "x86_64", flags: ["sse2"], cores: 1).kernelPath == "scalar")
        #expect(CPUFeatures.parseFlags("Features\t: fp asimd evtstrm\n") == ["asimd", "evtstrm", "fp"])
        #expect(!CPUFeatures.current(cores: 1).flags.isEmpty)
        // On this machine the path is the tier the kernels dispatch to, as `ondevice bench` says.
        #expect(CPUFeatures.current(cores: 1).kernelPath == KernelTier.name)
        #expect(CPUFeatures(architecture: "x86_64", flags: ["avx2"], cores: 1, dispatchedTier: "avx512").kernelPath == "avx512")
    }
}
