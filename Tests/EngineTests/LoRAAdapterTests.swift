import Tensor
import Foundation
import Models
import StructuredOutput
import TestSupport
import Testing
import TextGeneration

/// LoRA adapters on tiny F32 models: the run-time delta equals merging B·A into the weights,
/// removing an adapter restores the base bit for bit, and bad adapters are typed errors.
@Suite struct LoRAAdapterTests {
    static func adapter(for base: GGUFWriter, rank: Int, alpha: Float, seed: UInt64, f16: Bool = false,
                        architecture: String = "llama", edit: (inout GGUFWriter) -> Void = { _ in }) -> GGUFWriter {
        GGUFWriter.loraAdapter(for: base, rank: rank, alpha: alpha, seed: seed, f16: f16, architecture: architecture, edit: edit)
    }

    static func floats(_ bytes: [UInt8]) -> [Float] {
        stride(from: 0, to: bytes.count, by: 4).map {
            Float(bitPattern: UInt32(bytes[$0]) | UInt32(bytes[$0 + 1]) << 8 | UInt32(bytes[$0 + 2]) << 16 | UInt32(bytes[$0 + 3]) << 24)
        }
    }

    /// A tensor's values, F32, F16 or Q8_0.
    static func values(_ t: GGUFWriter.Tensor) -> [Float] {
        func half(_ i: Int) -> Float { Float(Float16(bitPattern: UInt16(t.data[i]) | UInt16(t.data[i + 1]) << 8)) }
        if t.rawType == GGMLType.q8_0.rawValue {
            return stride(from: 0, to: t.data.count, by: 34).flatMap { b in (0..<32).map { half(b) * Float(Int8(bitPattern: t.data[b + 2 + $0])) } }
        }
        guard t.rawType == GGMLType.f16.rawValue else { return floats(t.data) }
        return stride(from: 0, to: t.data.count, by: 2).map(half)
    }

    /// `adapter` with every `.lora_a`, and every `.lora_b` too when `b`, in Q8_0: blocks of 32
    /// values with the scale max|v| / 127 and the values rounded, as gguf-py's quantizer writes.
    static func q8(_ adapter: GGUFWriter, b: Bool) -> GGUFWriter {
        var out = adapter
        for i in out.tensors.indices where out.tensors[i].name.hasSuffix(".lora_a") || (b && out.tensors[i].name.hasSuffix(".lora_b")) {
            let v = values(out.tensors[i])
            var bytes: [UInt8] = []
            for start in stride(from: 0, to: v.count, by: 32) {
                let block = v[start..<start + 32], d = Float16((block.map(abs).max() ?? 0) / 127)
                let inverse: Float = d == 0 ? 0 : 127 / (block.map(abs).max() ?? 1)
                bytes += withUnsafeBytes(of: d.bitPattern.littleEndian) { Array($0) }
                bytes += block.map { UInt8(bitPattern: Int8(($0 * inverse).rounded())) }
            }
            out.tensors[i].rawType = GGMLType.q8_0.rawValue
            out.tensors[i].data = bytes
        }
        return out
    }

    /// `base` with multiplier · B·A added into every adapted weight (what llama.cpp's export-lora does).
    static func merged(_ base: GGUFWriter, _ adapters: [(GGUFWriter, Float)]) -> GGUFWriter {
        var out = base
        for i in out.tensors.indices {
            let t = out.tensors[i]
            var weight = floats(t.data)   // out rows of `inputs`
            let inputs = Int(t.dims[0])
            for (adapter, multiplier) in adapters {
                guard let a = adapter.tensors.first(where: { $0.name == t.name + ".lora_a" }),
                      let b = adapter.tensors.first(where: { $0.name == t.name + ".lora_b" }) else { continue }
                let av = values(a), bv = values(b), rank = Int(a.dims[1])
                for o in 0..<Int(t.dims[1]) {
                    for x in 0..<inputs {
                        var s: Float = 0
                        for k in 0..<rank { s += bv[o * rank + k] * av[k * inputs + x] }
                        weight[o * inputs + x] += multiplier * s
                    }
                }
            }
            out.tensors[i].data = weight.flatMap { f in withUnsafeBytes(of: f.bitPattern.littleEndian) { Array($0) } }
        }
        return out
    }

    static func logits(_ model: LanguageModel, _ tokens: [Int32], adapters: [ScaledAdapter] = [], session: Session? = nil) throws -> [Float] {
        let s = session ?? Session(model: model, contextLength: 32, threads: 1)
        try s.setAdapters(adapters)
        s.reset()
        try s.evaluate(tokens[...])
        return Array(UnsafeBufferPointer(start: s.logits, count: s.vocabularySize))
    }

    let tokens: [Int32] = [1, 5, 9, 3, 7, 11, 4]

    @Test func `the run-time delta equals merging scale times alpha over rank times B·A into the weights`() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let base = TinyModel().writer()
        let a1 = Self.adapter(for: base, rank: 2, alpha: 4, seed: 11), a2 = Self.adapter(for: base, rank: 3, alpha: 0, seed: 12)
        let model = try LanguageModel(path: try base.write(in: dir, name: "base.gguf"))
        let x1 = try model.loadAdapter(path: try a1.write(in: dir, name: "a1.gguf"))
        let x2 = try model.loadAdapter(path: try a2.write(in: dir, name: "a2.gguf"))
        #expect(x1.pairCount == 14 && x1.maxRank == 2 && x1.name == "a1")
        // One adapter at 0.5 (multiplier 0.5·4/2 = 1), then two at once (alpha 0: multiplier = scale).
        let one = try LanguageModel(path: try Self.merged(base, [(a1, 1)]).write(in: dir, name: "m1.gguf"))
        let two = try LanguageModel(path: try Self.merged(base, [(a1, 2), (a2, 0.7)]).write(in: dir, name: "m2.gguf"))
        let cases: [([ScaledAdapter], LanguageModel)] = [([ScaledAdapter(x1, scale: 0.5)], one),
                                                         ([ScaledAdapter(x1, scale: 1), ScaledAdapter(x2, scale: 0.7)], two)]
        let plain = try Self.logits(model, tokens)
        for (adapters, reference) in cases {
            let got = try Self.logits(model, tokens, adapters: adapters)
            let want = try Self.logits(reference, tokens)
            let worst = zip(got, want).map { abs($0 - $1) }.max() ?? .infinity
            let moved = zip(got, plain).map { abs($0 - $1) }.max() ?? 0
            #expect(worst < 1e-3, "max |adapter - merged| = \(worst)")
            #expect(moved > 0.05, "the adapter must change the logits (moved \(moved))")
        }
    }

    /// F16 pairs run packed (`LoRAPacking`: A's stacked and blocked, ranks padded to eight, B
    /// regrouped); the products round the input and A·x to f16 as ggml does, so they equal the
    /// merged weights to about 1e-3 of what the adapters move. A pair packed in the wrong order
    /// moves the logits by as much as the adapter does.
    @Test(arguments: [1, 2])
    func `F16 adapters run packed and equal merging B·A, token by token and as a prompt`(threads: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let base = TinyModel().writer()
        let a1 = Self.adapter(for: base, rank: 2, alpha: 4, seed: 11, f16: true), a2 = Self.adapter(for: base, rank: 9, alpha: 0, seed: 12, f16: true)
        let model = try LanguageModel(path: try base.write(in: dir, name: "base.gguf"))
        let x1 = try model.loadAdapter(path: try a1.write(in: dir, name: "a1.gguf"))
        let x2 = try model.loadAdapter(path: try a2.write(in: dir, name: "a2.gguf"))
        #expect(x1.packed != nil && x2.packed != nil && x1.heapBytes > 0)
        let merged = try LanguageModel(path: try Self.merged(base, [(a1, 2), (a2, 0.7)]).write(in: dir, name: "m.gguf"))
        let adapters = [ScaledAdapter(x1, scale: 1), ScaledAdapter(x2, scale: 0.7)]
        let want = try Self.logits(merged, tokens), plain = try Self.logits(model, tokens)
        let moved = zip(want, plain).map { abs($0 - $1) }.max() ?? 0
        #expect(moved > 0.05, "the adapters must change the logits (moved \(moved))")
        let prompt = Session(model: model, contextLength: 32, threads: threads)
        let stepped = Session(model: model, contextLength: 32, threads: threads)
        try prompt.setAdapters(adapters)
        try stepped.setAdapters(adapters)
        try prompt.evaluate(tokens[...])
        for t in tokens { try stepped.evaluate([t][...]) }
        for (name, s) in [("prompt", prompt), ("token by token", stepped)] {
            let got = Array(UnsafeBufferPointer(start: s.logits, count: s.vocabularySize))
            let worst = zip(got, want).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst < 2e-3 * max(1, moved), "\(name), \(threads) threads: max |adapter - merged| = \(worst), adapters moved \(moved)")
        }
        // Scale 0 adds nothing, bit for bit.
        let zero = try Self.logits(model, tokens, adapters: [ScaledAdapter(x1, scale: 0)])
        #expect(zero == plain)
    }

    /// Q8_0 halves, as `convert_lora_to_gguf.py --outtype q8_0` writes them: a Q8_0 A with an F16
    /// B runs packed (the group's A rows one after another, read by the Q8_0 kernels against the
    /// input quantized once); a rank-32 pair whose B is Q8_0 too runs one pair at a time. Both
    /// equal merging the dequantized B·A into the weights to what quantizing the input to Q8_0
    /// moves, as a prompt and token by token; a Q8_0 A read with the wrong stride or offset moves
    /// the logits by as much as the adapter does.
    @Test(arguments: [1, 2])
    func `Q8_0 adapters run and equal merging their dequantized B·A`(threads: Int) throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let base = TinyModel().writer()
        let a1 = Self.q8(Self.adapter(for: base, rank: 2, alpha: 4, seed: 31, f16: true), b: false)
        let a2 = Self.q8(Self.adapter(for: base, rank: 32, alpha: 8, seed: 32), b: true)
        let model = try LanguageModel(path: try base.write(in: dir, name: "base.gguf"))
        let x1 = try model.loadAdapter(path: try a1.write(in: dir, name: "a1.gguf"))
        let x2 = try model.loadAdapter(path: try a2.write(in: dir, name: "a2.gguf"))
        #expect(x1.packed != nil && x2.packed == nil)
        for (adapter, file, scale) in [(x1, a1, Float(1)), (x2, a2, Float(0.8))] {
            let merged = try LanguageModel(path: try Self.merged(base, [(file, scale * adapter.multiplier(scale: 1, rank: adapter.maxRank))])
                .write(in: dir, name: "m.gguf"))
            let want = try Self.logits(merged, tokens), plain = try Self.logits(model, tokens)
            let moved = zip(want, plain).map { abs($0 - $1) }.max() ?? 0
            #expect(moved > 0.05, "the adapter must change the logits (moved \(moved))")
            let prompt = Session(model: model, contextLength: 32, threads: threads)
            let stepped = Session(model: model, contextLength: 32, threads: threads)
            prompt.state.matmul.minBytesPerTask = 1
            stepped.state.matmul.minBytesPerTask = 1
            try prompt.setAdapters([ScaledAdapter(adapter, scale: scale)])
            try stepped.setAdapters([ScaledAdapter(adapter, scale: scale)])
            try prompt.evaluate(tokens[...])
            for t in tokens { try stepped.evaluate([t][...]) }
            for (name, s) in [("prompt", prompt), ("token by token", stepped)] {
                let got = Array(UnsafeBufferPointer(start: s.logits, count: s.vocabularySize))
                let worst = zip(got, want).map { abs($0 - $1) }.max() ?? .infinity
                print("[lora q8] rank \(adapter.maxRank) \(name), \(threads) threads: max |adapter - merged| = \(worst), moved \(moved)")
                #expect(worst < 2e-2 * max(1, moved), "rank \(adapter.maxRank) \(name), \(threads) threads: max |adapter - merged| = \(worst), moved \(moved)")
            }
        }
    }

    /// One packed adapter with the base products split over two threads: each decoded token's
    /// logits equal the one-thread path's bit for bit, and the merged weights' to the f16
    /// roundings.
    @Test func `one packed adapter decodes the same floats on one and two threads`() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        var tiny = TinyModel()
        tiny.embedding = 64
        tiny.feedForward = 128
        let base = tiny.writer()
        let a = Self.adapter(for: base, rank: 8, alpha: 16, seed: 21, f16: true)
        let model = try LanguageModel(path: try base.write(in: dir, name: "base.gguf"))
        let adapter = try model.loadAdapter(path: try a.write(in: dir, name: "a.gguf"))
        let merged = try LanguageModel(path: try Self.merged(base, [(a, 1.5)]).write(in: dir, name: "m.gguf"))
        let want = try Self.logits(merged, tokens), plain = try Self.logits(model, tokens)
        let moved = zip(want, plain).map { abs($0 - $1) }.max() ?? 0
        #expect(moved > 0.05, "the adapter must change the logits (moved \(moved))")
        var logits: [[Float]] = []
        for threads in [1, 2] {
            let s = Session(model: model, contextLength: 32, threads: threads)
            s.state.matmul.minBytesPerTask = 1  // split even these small matrices
            try s.setAdapters([ScaledAdapter(adapter, scale: 0.75)])
            for t in tokens { try s.evaluate([t][...]) }
            logits.append(Array(UnsafeBufferPointer(start: s.logits, count: s.vocabularySize)))
        }
        #expect(logits[0] == logits[1], "one and two threads differ")
        let worst = zip(logits[1], want).map { abs($0 - $1) }.max() ?? .infinity
        #expect(worst < 2e-3 * max(1, moved), "max |adapter - merged| = \(worst), the adapter moved \(moved)")
    }

    @Test func `removing the adapter restores the base logits bit for bit and scale 0 adds nothing`() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let base = TinyModel().writer()
        let model = try LanguageModel(path: try base.write(in: dir, name: "base.gguf"))
        let adapter = try model.loadAdapter(path: try Self.adapter(for: base, rank: 2, alpha: 4, seed: 3).write(in: dir, name: "a.gguf"))
        let session = Session(model: model, contextLength: 32, threads: 1)
        let before = try Self.logits(model, tokens, session: session)
        let with = try Self.logits(model, tokens, adapters: [ScaledAdapter(adapter)], session: session)
        #expect(with != before)
        #expect(session.adapters == [ScaledAdapter(adapter)])
        let after = try Self.logits(model, tokens, adapters: [], session: session)
        #expect(after == before)
        #expect(try Self.logits(model, tokens, adapters: [ScaledAdapter(adapter, scale: 0)]) == before)
    }

    @Test func `changing adapters clears the session cache and the same set keeps it`() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let base = TinyModel().writer()
        let model = try LanguageModel(path: try base.write(in: dir, name: "base.gguf"))
        let adapter = try model.loadAdapter(path: try Self.adapter(for: base, rank: 2, alpha: 4, seed: 3).write(in: dir, name: "a.gguf"))
        let session = Session(model: model, contextLength: 32, threads: 1)
        try session.prefill(tokens)
        try session.setAdapters([])
        #expect(session.tokens == tokens)
        try session.setAdapters([ScaledAdapter(adapter, scale: 0.5)])
        #expect(session.tokens.isEmpty)
        try session.prefill(tokens)
        try session.setAdapters([ScaledAdapter(adapter, scale: 0.5)])
        #expect(session.tokens == tokens)
        #expect(throws: EngineError.invalidAdapterScale(.infinity)) { try session.setAdapters([ScaledAdapter(adapter, scale: .infinity)]) }
    }

    @Test func `adapters with wrong shapes, halves, types or targets are typed errors`() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let base = TinyModel().writer()
        let model = try LanguageModel(path: try base.write(in: dir, name: "base.gguf"))
        func load(_ w: GGUFWriter) throws(EngineError) { _ = try model.loadAdapter(path: (try? w.write(in: dir, name: "bad.gguf")) ?? "") }
        func edited(_ edit: @escaping (inout GGUFWriter) -> Void) -> GGUFWriter { Self.adapter(for: base, rank: 2, alpha: 4, seed: 5, edit: edit) }
        func renamed(_ name: String, to new: String) -> GGUFWriter {
            edited { w in if let i = w.tensors.firstIndex(where: { $0.name == name }) { w.tensors[i].name = new } }
        }

        // lora_b of attn_q with 33 outputs instead of 32.
        let wrongOut = edited { w in
            let i = w.tensors.firstIndex { $0.name == "blk.0.attn_q.weight.lora_b" }!
            w.tensors[i] = GGUFWriter.Tensor(name: "blk.0.attn_q.weight.lora_b", rawType: 0, dims: [2, 33], data: [UInt8](repeating: 0, count: 2 * 33 * 4))
        }
        #expect(throws: EngineError.model(.shapeMismatch(tensor: "blk.0.attn_q.weight.lora_b", expected: [2, 32], found: [2, 33]))) { try load(wrongOut) }
        // lora_a of rank 3 with lora_b of rank 2.
        let wrongRank = edited { w in
            let i = w.tensors.firstIndex { $0.name == "blk.1.ffn_up.weight.lora_a" }!
            w.tensors[i] = GGUFWriter.Tensor(name: "blk.1.ffn_up.weight.lora_a", rawType: 0, dims: [32, 3], data: [UInt8](repeating: 0, count: 32 * 3 * 4))
        }
        #expect(throws: EngineError.model(.shapeMismatch(tensor: "blk.1.ffn_up.weight.lora_b", expected: [3, 64], found: [2, 64]))) { try load(wrongRank) }
        #expect(throws: EngineError.model(.adapterPairIncomplete(tensor: "blk.0.attn_k.weight.lora_a"))) {
            try load(renamed("blk.0.attn_k.weight.lora_b", to: "blk.0.attn_k.weight.extra"))
        }
        #expect(throws: EngineError.model(.adapterTargetUnsupported(tensor: "blk.0.attn_k.weight.extra"))) {
            try load(edited { $0.addTensor(name: "blk.0.attn_k.weight.extra", floats: [0], shape: [1]) })
        }
        #expect(throws: EngineError.model(.adapterTargetUnsupported(tensor: "blk.7.attn_q.weight"))) {
            try load(edited { w in
                w.addTensor(name: "blk.7.attn_q.weight.lora_a", floats: [Float](repeating: 0, count: 64), shape: [32, 2])
                w.addTensor(name: "blk.7.attn_q.weight.lora_b", floats: [Float](repeating: 0, count: 64), shape: [2, 32])
            })
        }
        #expect(throws: EngineError.model(.adapterTargetUnsupported(tensor: "token_embd.weight"))) {
            try load(edited { w in
                w.addTensor(name: "token_embd.weight.lora_a", floats: [Float](repeating: 0, count: 64), shape: [32, 2])
                w.addTensor(name: "token_embd.weight.lora_b", floats: [Float](repeating: 0, count: 64), shape: [2, 32])
            })
        }
        #expect(throws: EngineError.model(.unsupportedTensorType(tensor: "blk.0.attn_v.weight.lora_a", type: "Q4_0"))) {
            try load(edited { w in
                let i = w.tensors.firstIndex { $0.name == "blk.0.attn_v.weight.lora_a" }!
                w.tensors[i] = GGUFWriter.Tensor(name: "blk.0.attn_v.weight.lora_a", rawType: 2, dims: [32, 2], data: [UInt8](repeating: 0, count: 36))
            })
        }
        #expect(throws: EngineError.model(.adapterArchitectureMismatch(adapter: "gemma3", model: "llama"))) {
            try load(Self.adapter(for: base, rank: 2, alpha: 4, seed: 5, architecture: "gemma3"))
        }
        #expect(throws: EngineError.model(.notAnAdapter(generalType: "none"))) { try load(base) }
        #expect(throws: EngineError.model(.adapterEmpty)) {
            try load(edited { $0.tensors.removeAll() })
        }
    }

    @Test func `a truncated adapter file is a format error`() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let base = TinyModel().writer()
        let model = try LanguageModel(path: try base.write(in: dir, name: "base.gguf"))
        let bytes = Self.adapter(for: base, rank: 2, alpha: 4, seed: 5).bytes()
        for cut in [bytes.count - 100, bytes.count / 2, 40] {
            let path = dir.path + "/cut\(cut).gguf"
            try Data(bytes.prefix(cut)).write(to: URL(fileURLWithPath: path))
            #expect {
                _ = try model.loadAdapter(path: path)
            } throws: { error in
                guard case .model(.format) = error as? EngineError else { return false }
                return true
            }
        }
    }

    @Test func `an adapter loaded for one model is refused by a session of another shape`() throws {
        let dir = try TemporaryDirectory()
        defer { dir.cleanup() }
        let base = TinyModel().writer()
        var wider = TinyModel()
        wider.feedForward = 96
        let model = try LanguageModel(path: try base.write(in: dir, name: "base.gguf"))
        let other = try LanguageModel(path: try wider.writer().write(in: dir, name: "wider.gguf"))
        let adapter = try model.loadAdapter(path: try Self.adapter(for: base, rank: 2, alpha: 4, seed: 3).write(in: dir, name: "a.gguf"))
        let session = Session(model: other, contextLength: 32, threads: 1)
        #expect(throws: EngineError.model(.shapeMismatch(tensor: "blk.0.ffn_gate.weight.lora_b", expected: [2, 96], found: [2, 64]))) {
            try session.setAdapters([ScaledAdapter(adapter)])
        }
        #expect(session.adapters.isEmpty)
    }
}
