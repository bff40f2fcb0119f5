extension GGUFWriter {
    /// The weights llama.cpp's LoRA format may adapt, by the suffix of their tensor names.
    package static let loraMatrices = ["attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"]

    /// A random LoRA adapter of `rank` in llama.cpp's GGUF format for every adaptable weight of
    /// `base` (shapes from its tensors): `*.lora_a` is inputs × rank, `*.lora_b` rank × outputs,
    /// F32 or, with `f16`, F16 (what converters write by default).
    package static func loraAdapter(for base: GGUFWriter, rank: Int, alpha: Float, seed: UInt64, f16: Bool = false,
                                   architecture: String = "llama", edit: (inout GGUFWriter) -> Void = { _ in }) -> GGUFWriter {
        var rng = SeededGenerator(seed: seed)
        var w = GGUFWriter()
        w.add("general.architecture", .string(architecture))
        w.add("general.type", .string("adapter"))
        w.add("adapter.type", .string("lora"))
        w.add("adapter.lora.alpha", .float32(alpha))
        for t in base.tensors where loraMatrices.contains(where: { t.name.hasSuffix(".\($0).weight") }) {
            let (inputs, outputs) = (Int(t.dims[0]), Int(t.dims[1]))
            func random(_ n: Int) -> [Float] { (0..<n).map { _ in Float(Double(rng.next() % 2001) / 1000 - 1) * 0.3 } }
            func add(_ name: String, _ values: [Float], _ shape: [Int]) {
                if f16 {
                    w.addTensor(name: name, type: .f16, shape: shape,
                                data: values.flatMap { withUnsafeBytes(of: Float16($0).bitPattern.littleEndian, Array.init) })
                } else {
                    w.addTensor(name: name, floats: values, shape: shape)
                }
            }
            add(t.name + ".lora_a", random(inputs * rank), [inputs, rank])
            add(t.name + ".lora_b", random(rank * outputs), [rank, outputs])
        }
        edit(&w)
        return w
    }
}
