import Foundation
import Retrieval
import Testing

/// A sentence-transformers folder whose configuration leaves no room for an input is refused
/// with a typed error naming the setting, never a trap.
struct EmbedderConfigTests {
    @Test func `a max_seq_length under three tokens is an unsupported model`() throws {
        let source = try Fixtures.miniLMDirectory()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tiny-seq-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/1_Pooling", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["config.json", "model.safetensors", "tokenizer.json", "vocab.txt", "tokenizer_config.json", "1_Pooling/config.json"]
            where FileManager.default.fileExists(atPath: source + "/" + name) {
            try FileManager.default.createSymbolicLink(atPath: folder + "/" + name, withDestinationPath: source + "/" + name)
        }
        try Data(#"{"max_seq_length": 2, "do_lower_case": false}"#.utf8).write(to: URL(fileURLWithPath: folder + "/sentence_bert_config.json"))
        let error = #expect(throws: RetrievalError.self) { try Embedder.load(path: folder, modelId: "tiny-seq", revision: "test") }
        guard case .unsupportedModel(_, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("max_seq_length is 2"), "\(reason)")
    }
}
