extension GGUFWriter {
    /// The weights llama.cpp's LoRA format may adapt, by the suffix of their tensor names.
    package static let loraMatrices = ["attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"]

    /// A random F32 LoRA adapter of `rank` in llama.cpp's GGUF format for every adaptable weight
    /// of `base` (shapes from its tensors): `*.lora_a` is inputs × rank, `*.lora_b` rank × outputs.
    package static func loraAdapter(for base: GGUFWriter, rank: Int, alpha: Float, seed: UInt64,
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
            w.addTensor(name: t.name + ".lora_a", floats: random(inputs * rank), shape: [inputs, rank])
            w.addTensor(name: t.name + ".lora_b", floats: random(rank * outputs), shape: [rank, outputs])
        }
        edit(&w)
        return w
    }
}
