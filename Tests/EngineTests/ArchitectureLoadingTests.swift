import Foundation
import Models
import StructuredOutput
import TestSupport
import Testing
import TextGeneration

/// What a decoder refuses at load: anything in the file that would change the math but that the
/// architecture does not implement is a typed error, never a model that answers wrongly.
@Suite struct ArchitectureLoadingTests {
    private func load(_ tiny: TinyModel, edit: (inout GGUFWriter) -> Void = { _ in }) throws(EngineError) -> LanguageModel {
        let dir: TemporaryDirectory
        let path: String
        do {
            dir = try TemporaryDirectory()
            var w = tiny.writer()
            edit(&w)
            path = try w.write(in: dir)
        } catch {
            Issue.record("could not write the fixture: \(error)")
            throw .model(.missingArchitecture)
        }
        defer { dir.cleanup() }
        return try LanguageModel(path: path)
    }

    @Test func `a qwen2 file loads its projection biases and generates`() throws {
        var tiny = TinyModel()
        tiny.architecture = "qwen2"
        let model = try load(tiny)
        #expect(model.config.architecture == .qwen2)
        let session = Session(model: model, contextLength: 32, threads: 1)
        var options = GenerationOptions()
        options.sampling = .greedy
        options.maxTokens = 4
        let result = try Generator(session: session, options: options).run(prompt: [1, 40, 41])
        #expect(!result.generatedIds.isEmpty)
    }

    @Test func `a qwen2 file without its biases is refused, naming the tensor`() throws {
        var tiny = TinyModel()
        tiny.architecture = "qwen2"
        var w = tiny.writer()
        w.tensors.removeAll { $0.name == "blk.0.attn_k.bias" }
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let path = try w.write(in: dir)
        #expect(throws: EngineError.model(.format(.missingTensor(name: "blk.0.attn_k.bias")))) { try LanguageModel(path: path) }
    }

    @Test func `a tensor the architecture does not use is refused instead of ignored`() throws {
        // RoPE frequency factors (`rope_freqs.weight`) are read by the llama decoder only; a
        // decoder that skipped them would rotate every position wrongly.
        var qwen = TinyModel()
        qwen.architecture = "qwen2"
        let error = #expect(throws: EngineError.self) {
            try load(qwen) { $0.addTensor(name: "rope_freqs.weight", floats: [1, 1, 1, 1], shape: [4]) }
        }
        #expect(error == .model(.unexpectedTensor(name: "rope_freqs.weight", architecture: "qwen2")))
        _ = try load(TinyModel()) { $0.addTensor(name: "rope_freqs.weight", floats: [1, 1, 2, 8], shape: [4]) }
        let biasOnLlama = #expect(throws: EngineError.self) {
            try load(TinyModel()) { $0.addTensor(name: "blk.1.attn_q.bias", floats: Array(repeating: 0, count: 32), shape: [32]) }
        }
        #expect(biasOnLlama == .model(.unexpectedTensor(name: "blk.1.attn_q.bias", architecture: "llama")))
    }

    @Test func `RoPE scaling other than linear and partial rotary metadata are refused`() throws {
        let linear = #expect(throws: EngineError.self) {
            try load(TinyModel()) {
                $0.add("llama.rope.scaling.type", .string("yarn"))
                $0.add("llama.rope.scaling.factor", .float32(4))
            }
        }
        #expect(linear == .model(.unsupportedHyperparameter(key: "llama.rope.scaling.type", value: "yarn")))
        let partial = #expect(throws: EngineError.self) {
            try load(TinyModel()) { $0.add("llama.rope.dimension_count", .uint32(4)) }
        }
        #expect(partial == .model(.unsupportedHyperparameter(key: "llama.rope.dimension_count", value: "4")))
        // `none` and a full-width rotary dimension are what ordinary files say: they load.
        _ = try load(TinyModel()) {
            $0.add("llama.rope.scaling.type", .string("none"))
            $0.add("llama.rope.dimension_count", .uint32(8))
        }
    }

    @Test func `an architecture the engine does not run is named in the error`() throws {
        var tiny = TinyModel()
        tiny.architecture = "mamba"
        let error = #expect(throws: EngineError.self) { try load(tiny) }
        #expect(error == .model(.unsupportedArchitecture("mamba")))
        #expect(ModelError.unsupportedArchitecture("mamba").description.contains("qwen2"))
    }
}
