import Dispatch
import Models

/// Real-time factor of Piper synthesis: wall-clock seconds per second of audio produced
/// (below 1 is faster than real time). The best of `repetitions` runs, after one warm-up run,
/// with the golden scales (no noise) so every run does identical work.
package struct PiperBenchmark {
    package var repetitions = 3
    package var threads: Int

    package init(threads: Int, repetitions: Int = 3) {
        self.threads = threads
        self.repetitions = repetitions
    }

    package struct Result: Sendable, Equatable {
        /// Seconds of audio one synthesis produces.
        package var audioSeconds: Double
        /// Wall-clock seconds of each timed run.
        package var runSeconds: [Double]
        /// Best run's seconds / audio seconds.
        package var realTimeFactor: Double { (runSeconds.min() ?? 0) / max(audioSeconds, 1e-9) }
    }

    package func run(_ voice: PiperVoiceModel, phonemeIDs: [Int]) throws(ModelError) -> Result {
        let scales = PiperScales(noiseScale: 0, lengthScale: 1, noiseW: 0)
        let first = try voice.synthesize(phonemeIDs: phonemeIDs, scales: scales, seed: 0, threads: threads)
        var runs: [Double] = []
        for _ in 0..<max(1, repetitions) {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try voice.synthesize(phonemeIDs: phonemeIDs, scales: scales, seed: 0, threads: threads)
            runs.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return Result(audioSeconds: Double(first.samples.count) / Double(voice.sampleRate), runSeconds: runs)
    }
}
