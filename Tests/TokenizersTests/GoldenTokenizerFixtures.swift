import Foundation
import Formats
import TestSupport
import Testing
import Tokenizers

/// One line of `golden/llm/tokenizer-*.jsonl` (see golden/README.md, "LLM").
struct TokenizerFixture: Decodable, Sendable, CustomTestStringConvertible {
    let id: String
    let category: String
    let text: String
    let ids_plain: [Int32]
    let ids_special: [Int32]
    let ids_bos_special: [Int32]
    let tokens_special: [String]
    let detok_plain_roundtrip: Bool

    var testDescription: String { "\(id) \(category)" }
}

/// One line of `golden/llm/greedy-smollm2.jsonl`, the fields the chat template test reads.
struct GreedyPromptFixture: Decodable, Sendable, CustomTestStringConvertible {
    struct Message: Decodable, Sendable {
        let role: String
        let content: String
    }
    let id: String
    let messages: [Message]
    let prompt: String
    let prompt_ids: [Int32]

    var testDescription: String { id }
}

/// Golden files and real-model tokenizers, loaded once per test process.
enum Golden {
    /// `../shared/golden/llm` next to the repository root.
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/golden/llm").standardizedFileURL

    /// Every line of the golden file `name`; throws if it is missing, empty or a line does not decode.
    static func load<T: Decodable>(_ name: String, as: T.Type) throws -> [T] {
        let url = directory.appendingPathComponent(name)
        let text = try String(contentsOf: url, encoding: .utf8)
        let records = try text.split(separator: "\n").map { try JSONDecoder().decode(T.self, from: Data($0.utf8)) }
        guard !records.isEmpty else { throw GoldenFile.ReadError.noRecords(path: url.path) }
        return records
    }

    /// The same for `arguments:`, which cannot throw: empty when the file cannot be read, and
    /// then the presence tests fail with the reason (an empty argument list runs nothing).
    static func lines<T: Decodable>(_ name: String, as: T.Type) -> [T] {
        (try? load(name, as: T.self)) ?? []
    }

    static let smolLM2Strings = lines("tokenizer-smollm2.jsonl", as: TokenizerFixture.self)
    static let gemma3Strings = lines("tokenizer-gemma3.jsonl", as: TokenizerFixture.self)
    static let qwen25Strings = lines("tokenizer-qwen2.jsonl", as: TokenizerFixture.self)
    static let smolLM2Prompts = lines("greedy-smollm2.jsonl", as: GreedyPromptFixture.self)
    static let qwen25Prompts = lines("greedy-qwen2.jsonl", as: GreedyPromptFixture.self)

    static let smolLM2: Tokenizer? = load(TestModels.smolLM2)
    static let gemma3: Tokenizer? = load(TestModels.gemma3)
    static let qwen25: Tokenizer? = load(TestModels.qwen25)

    private static func load(_ fileName: String) -> Tokenizer? {
        guard let path = TestModels.path(fileName), let file = try? GGUFFile.open(path: path) else { return nil }
        return try? Tokenizer(gguf: file)
    }
}
