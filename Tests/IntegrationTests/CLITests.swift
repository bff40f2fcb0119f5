import Foundation
import Testing
import TestSupport

/// The `ondevice` command end to end: JSON output against the golden references, and one clear
/// line plus a non-zero exit for every kind of bad input.
@Suite struct CLITests {
    static func smolLM2() throws -> String {
        try #require(TestModels.path(TestModels.smolLM2), "SmolLM2 not installed: run scripts/setup.sh")
    }

    @Test func `tokenize --json gives llama.cpp's ids, special tokens parsed`() async throws {
        let record = try #require(try GoldenFiles.lines("llm/greedy-smollm2.jsonl").first)
        let out = try await CLIRunner.run(["tokenize", "--model", try Self.smolLM2(), "--json", record.string("prompt")])
        #expect(out.status == 0, "\(out.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any] ?? [:]
        #expect(json.ints("ids") == record.ints("prompt_ids"))
        GoldenRecords.checked(in: Self.self)
    }

    @Test func `generate --json --greedy reproduces llama.cpp's continuation`() async throws {
        let record = try #require(try GoldenFiles.lines("llm/greedy-smollm2.jsonl").first)
        let message = try #require((record["messages"] as? [[String: String]])?.first?["content"])
        let out = try await CLIRunner.run(["generate", "--model", try Self.smolLM2(), "--greedy", "--max-tokens", "48", "--json", message])
        #expect(out.status == 0, "\(out.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any] ?? [:]
        #expect(json.ints("prompt_ids") == record.ints("prompt_ids"))
        #expect(json.ints("generated_ids") == record.ints("generated_ids"))
        #expect(json.string("text") == record.string("text"))
        GoldenRecords.checked(in: Self.self)
    }

    @Test func `a missing model id is one line and a non-zero exit`() async throws {
        let out = try await CLIRunner.run(["generate", "--model", "no-such-model", "hi"])
        #expect(out.status != 0)
        #expect(out.stderr.hasPrefix("ondevice: "))
        #expect(out.stderr.contains("no-such-model"))
        #expect(out.stderr.split(separator: "\n").count == 1)
    }

    @Test func `a truncated model file is one line naming the problem`() async throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try Self.smolLM2()), options: .alwaysMapped)
        let cut = dir.file("cut.gguf")
        try bytes.prefix(4096).write(to: URL(fileURLWithPath: cut))
        let out = try await CLIRunner.run(["generate", "--model", cut, "hi"])
        #expect(out.status == 1)
        #expect(out.stderr.contains("exceeds the file") || out.stderr.contains("truncated") || out.stderr.contains("past the file end"),
                "\(out.stderr)")
        #expect(out.stderr.split(separator: "\n").count == 1)
    }

    @Test func `a prompt longer than the context is refused`() async throws {
        let out = try await CLIRunner.run(["generate", "--model", try Self.smolLM2(), "--context", "16", "--raw",
                                     String(repeating: "word ", count: 40)])
        #expect(out.status == 1)
        #expect(out.stderr.contains("input too long: 41 tokens"), "\(out.stderr)")
    }

    @Test func `usage errors exit with status 2`() async throws {
        #expect(try await CLIRunner.run(["generate", "--model", "x", "--bogus", "hi"]).status == 2)
        #expect(try await CLIRunner.run(["frobnicate"]).status == 2)
        #expect(try await CLIRunner.run(["generate", "--model"]).status == 2)
        #expect(try await CLIRunner.run(["generate", "--max-tokens", "many", "--model", "x", "hi"]).status == 2)
        for size in ["-1", "2000000000", "lots"] {
            let out = try await CLIRunner.run(["serve", "--prompt-cache", size])
            #expect(out.status == 2 && out.stderr.contains("--prompt-cache"), "\(size): \(out.stderr)")
        }
    }
}
