import Foundation
import Testing
import TestSupport

/// `ondevice capability` end to end: an answer with a `status` for every op and model.
@Suite struct CapabilityCLITests {
    static let statuses: Set<String> = ["ready", "needs_download", "downloading", "insufficient_storage",
                                        "insufficient_memory", "unsupported"]

    func objects(_ stdout: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func `every op and catalog model gets a status on an empty store`() async throws {
        let home = try TemporaryDirectory()
        let out = try await CLIRunner.run(["capability", "all", "--json"],
                                    environment: ["ONDEVICE_HOME": home.file("models"), "XDG_CONFIG_HOME": home.file("config")])
        #expect(out.status == 0, "\(out.stderr)")
        let answers = try objects(out.stdout)
        let ops = answers.compactMap { $0["op"] as? String }
        #expect(ops == ["generate", "chat", "summarize", "translate", "proofread", "transcribe", "vad", "embed", "search", "speak"])
        #expect(answers.count > ops.count)
        for answer in answers {
            #expect(Self.statuses.contains(answer["status"] as? String ?? ""), "\(answer)")
            #expect(answer["download_bytes_remaining"] is Int)
        }
        let summarize = try #require(answers.first { $0["op"] as? String == "summarize" })
        #expect(summarize["status"] as? String == "needs_download")
        #expect(summarize["needed_bytes"] as? Int == 98_362_432)
    }

    @Test func `an installed model is ready with an exact estimate`() async throws {
        _ = try #require(TestModels.path(TestModels.smolLM2), "SmolLM2 not installed: run scripts/setup.sh")
        let config = try TemporaryDirectory()
        let out = try await CLIRunner.run(["capability", "summarize", "--json"], environment: ["XDG_CONFIG_HOME": config.path])
        #expect(out.status == 0, "\(out.stderr)")
        let answer = try #require(try objects(out.stdout).first)
        #expect(answer["status"] as? String == "ready")
        #expect(answer["estimate_is_lower_bound"] as? Bool == false)
        #expect((answer["resident_estimate_bytes"] as? Int ?? 0) > 98_362_432)
    }

    @Test func `an unknown op or model is a usage error`() async throws {
        let out = try await CLIRunner.run(["capability", "no-such-thing"])
        #expect(out.status == 2)
        #expect(out.stderr.contains("no-such-thing"))
    }
}
