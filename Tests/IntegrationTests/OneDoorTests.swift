import Foundation
import OnDevice
import Testing
import TestSupport

/// One text core under every door: the same prompt, options and seed sent through the SDK, the
/// `ondevice` command and `ondevice serve` give the same prompt ids and the same generated ids,
/// greedy and sampled.
@Suite(.serialized) struct OneDoorTests {
    /// One prompt per round: a prompt whose prefix a door has cached is evaluated from the
    /// cache, and a last token evaluated alone (matrix-vector) can differ in its last bits from
    /// the same token in a batched prefill (GEMM), which a sampled round would show. The rounds'
    /// prompts share only the template's opening, evaluated as a batch in every door.
    static let prompts = ["Name three rivers of Europe and one fact about each.",
                          "Write two sentences about the moon, then one about the sea."]

    struct Tokens: Equatable, CustomStringConvertible {
        var prompt: [Int]
        var generated: [Int]
        var description: String { "prompt \(prompt.count) ids, generated \(generated)" }
    }

    /// A running `ondevice serve` on an ephemeral loopback port.
    final class Serve {
        let process = Process()
        let port: Int

        init(threads: Int) throws {
            process.executableURL = URL(fileURLWithPath: CLIRunner.executable)
            process.arguments = ["serve", "--port", "0", "--threads", String(threads)]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            // The first line names the port: "ondevice serve: listening on http://127.0.0.1:PORT/v1 …".
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = out.fileHandleForReading.availableData
                guard !chunk.isEmpty else { break }
                line += chunk
            }
            let text = String(decoding: line, as: UTF8.self)
            guard let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
                  let port = Int(text[range].split(separator: ":").last ?? "") else {
                process.terminate()
                throw CLIError("ondevice serve did not report its port: \(text)")
            }
            self.port = port
        }

        /// POSTs `body` with curl (a client outside the process, as users run one).
        func post(_ path: String, _ body: [String: Any]) throws -> [String: Any] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            p.arguments = ["-s", "--max-time", "300", "-H", "Content-Type: application/json", "-d",
                           String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self),
                           "http://127.0.0.1:\(port)\(path)"]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw CLIError("not a JSON object: \(String(decoding: data, as: UTF8.self))")
            }
            return json
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
        }
    }

    struct CLIError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }

    @Test(arguments: [TestModels.smolLM2, TestModels.qwen25])
    func `the same prompt, options and seed give the same tokens through the SDK, the CLI and the server`(_ file: String) async throws {
        let ai = try OpsTests.instance(file)
        let id = try #require(ai.configuration.textModel)
        let serve = try Serve(threads: 2)
        // Greedy, then sampled with each door's defaults (no temperature, top-k, top-p or min-p
        // given: they must be one set) and a seed.
        let rounds: [(prompt: String, temperature: Float?, seed: UInt64)] = [(Self.prompts[0], 0, 0), (Self.prompts[1], nil, 1234)]
        for (prompt, temperature, seed) in rounds {
            var options = TextOptions()
            if let temperature { options.temperature = temperature }
            options.seed = seed
            options.maxTokens = 24
            let sdk = try await ai.textModel.generate(prompt, options: options)
            let fromSDK = Tokens(prompt: sdk.promptTokenIDs.map(Int.init), generated: sdk.tokenIDs.map(Int.init))

            let cli = try await CLIRunner.run(["generate", "--model", id, "--threads", "2", "--seed", String(seed), "--max-tokens", "24",
                                         "--json", prompt] + (temperature.map { ["--temperature", String($0)] } ?? []))
            #expect(cli.status == 0, "\(cli.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any])
            let fromCLI = Tokens(prompt: try #require(json["prompt_ids"] as? [Int]), generated: try #require(json["generated_ids"] as? [Int]))

            var body: [String: Any] = ["model": id, "messages": [["role": "user", "content": prompt]], "max_tokens": 24,
                                       "seed": Int(seed), "return_token_ids": true]
            if let temperature { body["temperature"] = Double(temperature) }
            let reply = try serve.post("/v1/chat/completions", body)
            let choice = try #require((reply["choices"] as? [[String: Any]])?.first, "\(reply)")
            let fromServer = Tokens(prompt: try #require(choice["prompt_token_ids"] as? [Int], "\(reply)"),
                                    generated: try #require(choice["token_ids"] as? [Int], "\(reply)"))

            #expect(fromSDK.generated.count > 1)
            #expect(fromCLI == fromSDK, "CLI vs SDK at temperature \(String(describing: temperature))")
            #expect(fromServer == fromSDK, "server vs SDK at temperature \(String(describing: temperature))")
            // The text each door shows is the same too.
            #expect(json["text"] as? String == sdk.text)
            #expect((choice["message"] as? [String: Any])?["content"] as? String == sdk.text)
        }
    }
}
