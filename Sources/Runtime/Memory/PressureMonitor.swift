import EngineSupport
/// Polls a pressure probe on the runtime's clock and hands levels to the residency cache. It
/// reports every poll above normal (warning and critical act on whatever became idle since) and
/// the return to normal once (which lifts critical's unload-on-release marks).
///
/// Polling, not a PSI trigger: triggers need write access to /proc/pressure/memory, which
/// unprivileged processes lack on many kernels, and a 2 s poll of avg10 is well inside the time
/// it takes memory to run out from a model load.
package struct PressureMonitor: Sendable {
    package var probe: any PressureProbing
    package var interval: Duration
    package var classifier = PressureClassifier()

    package init(probe: any PressureProbing, interval: Duration = .seconds(2)) {
        self.probe = probe
        self.interval = interval
    }

    /// Runs until the task is cancelled.
    package func run(clock: any RuntimeClock, residency: Residency) async {
        var classifier = classifier
        var last = MemoryPressure.normal
        var next = clock.now
        while !Task.isCancelled {
            let level = classifier.classify(probe.read())
            if level != .normal || last != .normal {
                await residency.handlePressure(level)
            }
            last = level
            next += interval
            do { try await clock.sleep(until: next) } catch { return }
        }
    }
}
