import Foundation
import Testing
import TestSupport

/// The engine-level benchmarks live in the `Benchmarks` executable (they time what the public
/// API hides, so the CLI, a door, does not carry them): each runs and reports its figures, and
/// `ondevice` points to it. No timing is asserted.
@Suite struct BenchmarksCLITests {
    func object(_ out: CLIRunner.Output) throws -> [String: Any] {
        let line = try #require(out.stdout.split(separator: "\n").last { $0.hasPrefix("{") }, "\(out.stdout)")
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func `the CLI names where each moved benchmark went`() async throws {
        for (old, new) in [(["bench-asr"], "Benchmarks asr"), (["bench-embed"], "Benchmarks embed"), (["bench-tts"], "Benchmarks speak"),
                           (["bench-residency"], "Benchmarks residency"), (["photos", "bench"], "Benchmarks photos")] {
            let out = try await CLIRunner.run(old)
            #expect(out.status == 2 && out.stderr.contains(new), "\(old): \(out.stderr)")
        }
    }

    @Test func `asr, embed and speak run and report`() async throws {
        _ = try #require(TestModels.path(TestModels.smolLM2), "models not installed: run scripts/setup.sh")
        let clip = GoldenFiles.root.appendingPathComponent("audio/p01_piper_weather.wav").path
        let asr = try await CLIRunner.run(["asr", clip, "--threads", "1", "--beam", "1", "--json"], executable: "Benchmarks")
        #expect(asr.status == 0, "\(asr.stderr)")
        let row = try #require((try object(asr)["results"] as? [[String: Any]])?.first)
        #expect((row["real_time_factor"] as? Double ?? 0) > 0 && (row["encode_seconds"] as? Double ?? 0) > 0, "\(row)")

        let embed = try await CLIRunner.run(["embed", "--sentences", "16", "--batch", "8", "--repetitions", "1", "--vectors", "300",
                                             "--threads", "1", "--json"], executable: "Benchmarks")
        #expect(embed.status == 0, "\(embed.stderr)")
        let report = try object(embed)
        #expect(report["model"] as? String == "all-minilm-l6-v2" && (report["sentences_per_second"] as? Double ?? 0) > 0)
        #expect((report["search"] as? [[String: Any]])?.first?["vectors"] as? Int == 300)

        let speak = try await CLIRunner.run(["speak", "--repetitions", "1", "--json", "Hello there."], executable: "Benchmarks")
        #expect(speak.status == 0, "\(speak.stderr)")
        let spoken = try #require((try object(speak)["results"] as? [[String: Any]])?.first)
        #expect((spoken["audio_seconds"] as? Double ?? 0) > 0.3 && (spoken["real_time_factor"] as? Double ?? 0) > 0, "\(spoken)")
    }
}
