import Foundation
import Testing
import TestSupport

/// `ondevice chat --tools`: calls and results in the per-turn JSON, and usage errors for tool
/// names the CLI does not have.
@Suite struct ToolChatCLITests {
    @Test func `chat --tools all --json reports each turn's calls with their results`() async throws {
        let model = try #require(TestModels.path(TestModels.smolLM2), "SmolLM2 not installed: run scripts/setup.sh")
        let out = try await CLIRunner.run(["chat", "--model", model, "--tools", "all", "--require-tool-call", "--greedy",
                                     "--max-tokens", "96", "--threads", "2", "--json"],
                                    stdin: "What is 6 times 7?\nWhat time is it?\n")
        #expect(out.status == 0, "\(out.stderr)")
        let turns = out.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(turns.count == 2)
        for turn in turns {
            let calls = turn["tool_calls"] as? [[String: Any]] ?? []
            #expect(!calls.isEmpty, "a required call was made: \(turn)")
            for call in calls {
                #expect(["calculate", "current_time"].contains(call["name"] as? String ?? ""))
                #expect(call["arguments"] is [String: Any] && call["result"] is String && call["is_error"] is Bool)
            }
            #expect(turn["text"] is String)
            #expect((turn["metrics"] as? [Any])?.count == calls.count + 1)
        }
    }

    @Test(arguments: [["--tools", "weather"], ["--tools", ","], ["--max-tool-calls", "2"], ["--tools", "all", "--max-tool-calls", "-1"]])
    func `unknown tools and tool options without --tools are usage errors`(_ extra: [String]) async throws {
        let model = try #require(TestModels.path(TestModels.smolLM2), "SmolLM2 not installed: run scripts/setup.sh")
        let out = try await CLIRunner.run(["chat", "--model", model] + extra, stdin: "hi\n")
        #expect(out.status == 2, "\(out.stdout) \(out.stderr)")
        #expect(out.stderr.hasPrefix("ondevice: ") && out.stderr.split(separator: "\n").count == 1)
    }
}
