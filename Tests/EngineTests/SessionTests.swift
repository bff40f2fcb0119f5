import Models
import StructuredOutput
import TestSupport
import Testing
import TextGeneration

@Suite struct SessionTests {
    @Test(arguments: ["llama", "gemma3"])
    func `a batched prompt gives the same logits as one token at a time`(_ arch: String) throws {
        let model = try loadTiny { $0.architecture = arch }
        let prompt: [Int32] = [1, 40, 41, 42, 43, 44, 45, 46, 47, 48]
        let vocab = model.config.vocabularySize
        let batched = Session(model: model, threads: 1)
        let all = UnsafeMutablePointer<Float>.allocate(capacity: prompt.count * vocab)
        defer { all.deallocate() }
        try batched.evaluate(prompt[...], allLogits: all)
        let stepwise = Session(model: model, threads: 2)
        for (i, t) in prompt.enumerated() {
            try stepwise.evaluate([t][...])
            for j in 0..<vocab {
                #expect(abs(stepwise.logits[j] - all[i * vocab + j]) < 2e-3, "position \(i) id \(j)")
            }
        }
    }

    /// A prompt batch's norms and gated activations split over two threads (here even a tiny
    /// model's, by lowering the threshold), as its matrix products do: the logits of every
    /// position are the same bits as on one thread.
    @Test(arguments: ["llama", "gemma3"])
    func `a prompt gives the same logits on one and two threads`(_ arch: String) throws {
        let model = try loadTiny { $0.architecture = arch }
        let prompt: [Int32] = [1, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51]
        let vocab = model.config.vocabularySize
        var logits: [[Float]] = []
        for threads in [1, 2] {
            let s = Session(model: model, threads: threads)
            s.state.minElementsPerSplit = 1
            s.state.matmul.minBytesPerTask = 1
            let all = UnsafeMutablePointer<Float>.allocate(capacity: prompt.count * vocab)
            defer { all.deallocate() }
            try s.evaluate(prompt[...], allLogits: all)
            logits.append(Array(UnsafeBufferPointer(start: all, count: prompt.count * vocab)))
        }
        let differing = zip(logits[0], logits[1]).filter { $0 != $1 }.count
        #expect(differing == 0, "\(arch): \(differing) of \(logits[0].count) logits differ between one and two threads")
    }

    @Test func `prefill reuses the cached prefix and matches a fresh evaluation`() throws {
        let model = try loadTiny()
        let session = Session(model: model, threads: 1)
        try session.prefill([1, 50, 51, 52])
        let reused = try session.prefill([1, 50, 51, 52, 53, 54])
        #expect(reused == 4)
        let fresh = Session(model: model, threads: 1)
        try fresh.prefill([1, 50, 51, 52, 53, 54])
        for j in 0..<model.config.vocabularySize { #expect(abs(fresh.logits[j] - session.logits[j]) < 1e-4) }
        // A diverging prompt keeps only the shared prefix.
        #expect(try session.prefill([1, 50, 60]) == 2)
    }

    @Test func `a prompt longer than the context is a typed error`() throws {
        let model = try loadTiny { $0.contextLength = 16 }
        let session = Session(model: model)
        #expect(session.contextLength == 16)
        #expect(throws: EngineError.contextOverflow(tokens: 20, contextLength: 16)) {
            try session.prefill([Int32](repeating: 40, count: 20))
        }
        #expect(throws: EngineError.invalidToken(id: 99_999, vocabularySize: model.config.vocabularySize)) {
            try session.prefill([1, 99_999])
        }
        #expect(throws: EngineError.emptyPrompt) { try session.prefill([]) }
    }

    @Test func `an unknown architecture is a typed error`() throws {
        #expect(throws: EngineError.model(.unsupportedArchitecture("mamba"))) {
            _ = try loadTiny { $0.architecture = "mamba" }
        }
    }

    @Test func `an unsupported weight type is a typed error naming the tensor`() throws {
        #expect(throws: EngineError.model(.unsupportedTensorType(tensor: "blk.1.ffn_up.weight", type: "I32"))) {
            _ = try loadTiny { $0.typeOverrides["blk.1.ffn_up.weight"] = .i32 }
        }
    }

    @Test func `a truncated model file is a typed error, never a crash`() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let bytes = TinyModel().writer().bytes()
        for cut in [10, 100, bytes.count / 2, bytes.count - 1] {
            let path = dir.file("cut\(cut).gguf")
            try Data(bytes.prefix(cut)).write(to: URL(fileURLWithPath: path))
            #expect(throws: EngineError.self) { _ = try LanguageModel(path: path) }
        }
    }
}

import Foundation
