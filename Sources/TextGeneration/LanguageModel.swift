import Formats
import Foundation
import Models
import StructuredOutput
import Tensor
import Tokenizers

/// An immutable loaded language model: mapped weights, architecture and tokenizer. Shared by
/// any number of sessions (each session owns its own KV cache).
package final class LanguageModel: Sendable {
    package let path: String
    package let file: GGUFFile
    package let decoder: any DecoderModel
    package let tokenizer: Tokenizer
    /// The chat template compiled once at load (nil text → `.noChatTemplate`).
    private let template: Result<ChatTemplate, TokenizerError>
    /// Merges the passes of this model's sessions that run at the same time (continuous
    /// batching), for every door.
    package let batcher = DecodeBatcher()

    package var config: DecoderConfig { decoder.config }

    /// Maps and validates the GGUF at `path`: format, architecture, every weight's type and
    /// shape, and the tokenizer. Nothing is copied; weights stay in the mapping.
    package convenience init(path: String) throws(EngineError) {
        let file: GGUFFile
        do { file = try GGUFFile.open(path: path) } catch { throw .model(.format(error)) }
        try self.init(file: file, path: path)
    }

    package init(file: GGUFFile, path: String) throws(EngineError) {
        self.path = path
        self.file = file
        do { decoder = try loadDecoder(file: file) } catch { throw .model(error) }
        let spec: TokenizerSpec
        do { spec = try TokenizerSpec(gguf: file) } catch { throw .tokenizer(error) }
        do { tokenizer = try Tokenizer(spec: spec) } catch { throw .tokenizer(error) }
        let tokenizer = self.tokenizer
        let special = { (id: Int32?) in id.flatMap { tokenizer.tokenText($0) } }
        do {
            template = .success(try ChatTemplate(metadataTemplate: file.string("tokenizer.chat_template"),
                                                 bosToken: special(tokenizer.bosId), eosToken: special(tokenizer.eosId)))
        } catch {
            template = .failure(error)
        }
    }

    /// The quantization the file declares (`general.file_type`, e.g. "Q4_K_M"), else the
    /// dominant weight type (the type most weight bytes are stored in). Mixed files such as
    /// Q4_K_M keep large tensors (Gemma's 262k-token embedding) in other types, so by bytes
    /// alone Gemma 3 Q4_K_M would read as Q8_0.
    package var quantization: String {
        if let ftype = file.int("general.file_type"), let name = Self.fileTypeNames[ftype] { return name }
        var bytes: [GGMLType: Int] = [:]
        for t in file.tensorInfos where t.shape.count >= 2 { bytes[t.type, default: 0] += t.byteCount }
        return bytes.max { $0.value < $1.value }?.key.description ?? "unknown"
    }

    /// llama.cpp's `llama_ftype` values, as written to `general.file_type`.
    static let fileTypeNames: [Int: String] = [
        0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
        11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
        17: "Q5_K_M", 18: "Q6_K", 32: "BF16",
    ]

    /// Bytes of weights mapped.
    package var weightBytes: Int { decoder.weights.byteCount }

    /// The chat template the model's metadata declares: `.noChatTemplate` without one,
    /// `.tokenizer(.chatTemplateFailed)` naming the construct for one that cannot run.
    package func chatTemplate() throws(EngineError) -> ChatTemplate {
        switch template {
        case .success(let t): return t
        case .failure(.noChatTemplate): throw .noChatTemplate
        case .failure(let error): throw .tokenizer(error)
        }
    }

    /// The one way a conversation becomes prompt ids, for every door: the model's own template
    /// renders it (with `tools`, JSON texts of OpenAI-style definitions, when the template lays
    /// them out), and only the template's own text can hold control tokens.
    package func encodeChat(_ messages: [ChatMessage], tools: [String]? = nil, addGenerationPrompt: Bool = true) throws(EngineError) -> [Int32] {
        let template = try chatTemplate()
        do {
            return tokenizer.encode(try template.prompt(messages: messages, tools: tools, addGenerationPrompt: addGenerationPrompt))
        } catch {
            throw .tokenizer(error)
        }
    }
}

extension LanguageModel {
    /// Maps the GGUF LoRA adapter at `path` and checks it fits this model (architecture, every
    /// adapted weight's name and shape). The adapter is immutable and can be shared by sessions.
    package func loadAdapter(path: String, name: String? = nil) throws(EngineError) -> LoRAAdapter {
        let file: GGUFFile
        do { file = try GGUFFile.open(path: path) } catch { throw .model(.format(error)) }
        let label = name ?? ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        do { return try LoRAAdapter(file: file, name: label, base: decoder) } catch { throw .model(error) }
    }
}
