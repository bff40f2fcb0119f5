import Formats
import Tensor

/// A LoRA adapter in llama.cpp's GGUF LoRA layout, mapped and checked against the decoder it is
/// meant for, its F16 and Q8_0 pairs copied once into the order the kernels read
/// (`LoRAPacking`). It never changes the base weights: a session applies it at run time as
/// y = W·x + scale · (alpha / rank) · B·(A·x) for every adapted matrix W.
///
/// Layout read (GGUF v2/v3, parsed by `GGUFFile`):
/// - metadata `general.type` = "adapter", `adapter.type` = "lora", `general.architecture` = the
///   base's architecture, `adapter.lora.alpha` (float; absent or 0 means the multiplier is the
///   scale alone, as in llama.cpp);
/// - for each adapted base weight `W` (here `blk.N.<attn_q|attn_k|attn_v|attn_output|ffn_gate|
///   ffn_up|ffn_down>.weight`, shape [in, out]) two tensors `W.lora_a`, shape [in, r], and
///   `W.lora_b`, shape [r, out] (ggml order, `ne[0]` first): A is r rows of `in`, B is `out`
///   rows of r, the layout of PEFT's `lora_A` / `lora_B`. F32, F16 or Q8_0 (what
///   `convert_lora_to_gguf.py --outtype q8_0` writes: A in Q8_0, and B too when the rank is a
///   whole number of 32-value blocks, else F16).
/// Anything else (an unpaired half, a weight the decoder does not have or cannot adapt, a rank
/// or shape that disagrees with the base) is a `ModelError`, never a silently wrong output.
package final class LoRAAdapter: Sendable {
    /// One adapted matrix, as mapped from the file.
    package struct Pair: Sendable {
        package let a: TensorView   // [in, r]
        package let b: TensorView   // [r, out]
        package var rank: Int { b.rowLength }
        package var inputs: Int { a.rowLength }
        package var outputs: Int { b.rowCount }
    }

    /// A label for logs and reports (the file's base name unless given).
    package let name: String
    package let file: GGUFFile
    package let architecture: Architecture
    /// `adapter.lora.alpha`, 0 when absent.
    package let alpha: Float
    /// Pairs by `layer * LayerMatrix.allCases.count + matrix.index`; nil where not adapted.
    let pairs: [Pair?]
    /// The pairs whose B is F16 and A F16 or Q8_0, copied into one buffer in the order a token
    /// reads them (what every product with this adapter reads); nil when there is none.
    package let packed: LoRAPacking?
    /// Whether every pair is in `packed` (a product then has no pair to take one by one).
    let allPacked: Bool
    /// Layers the table covers (the base's layer count at load).
    package let layerCount: Int

    /// Reads `file` as an adapter for `base` (architecture, layer count, every shape checked).
    package init(file: GGUFFile, name: String, base: any DecoderModel) throws(ModelError) {
        let type = file.string("general.type")
        guard type == "adapter" else { throw .notAnAdapter(generalType: type ?? "none") }
        let kind = file.string("adapter.type") ?? "none"
        guard kind == "lora" else { throw .unsupportedAdapter(type: kind) }
        guard let archName = file.architecture else { throw .missingArchitecture }
        guard let arch = Architecture(rawValue: archName) else { throw .unsupportedArchitecture(archName) }
        guard arch == base.config.architecture else {
            throw .adapterArchitectureMismatch(adapter: archName, model: base.config.architecture.rawValue)
        }
        self.name = name
        self.file = file
        architecture = arch
        alpha = file.float("adapter.lora.alpha") ?? 0
        guard alpha.isFinite, alpha >= 0 else { throw .invalidHyperparameter(key: "adapter.lora.alpha", value: String(alpha)) }
        layerCount = base.config.layerCount

        var table = [Pair?](repeating: nil, count: layerCount * LayerMatrix.allCases.count)
        for info in file.tensorInfos {
            let target: String
            if info.name.hasSuffix(".lora_a") {
                target = String(info.name.dropLast(7))
            } else if info.name.hasSuffix(".lora_b") {
                guard file.hasTensor(String(info.name.dropLast(7)) + ".lora_a") else { throw .adapterPairIncomplete(tensor: info.name) }
                continue
            } else {
                throw .adapterTargetUnsupported(tensor: info.name)
            }
            guard let (layer, matrix) = Self.parseTarget(target), layer < layerCount else {
                throw .adapterTargetUnsupported(tensor: target)
            }
            guard file.hasTensor(target + ".lora_b") else { throw .adapterPairIncomplete(tensor: info.name) }
            let pair = try Self.loadPair(file: file, target: target)
            try Self.check(pair, against: base.weights.layers[layer][matrix: matrix])
            table[layer * LayerMatrix.allCases.count + matrix.index] = pair
        }
        guard table.contains(where: { $0 != nil }) else { throw .adapterEmpty }
        pairs = table
        packed = LoRAPacking(pairs: table, layerCount: layerCount)
        allPacked = packed?.pairCount == table.reduce(0) { $0 + ($1 == nil ? 0 : 1) }
    }

    /// The pair adapting `matrix` of `layer`, if any (also when it is packed).
    @inline(__always) package func pair(layer: Int, _ matrix: LayerMatrix) -> Pair? {
        pairs[layer * LayerMatrix.allCases.count + matrix.index]
    }

    /// Matrices adapted.
    package var pairCount: Int { pairs.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }

    /// The largest rank of any pair (sizes the session's scratch).
    package var maxRank: Int { pairs.reduce(0) { max($0, $1?.rank ?? 0) } }

    /// Bytes the adapter's products read (for residency): the packed copy, and the mapped
    /// tensors of the pairs that are not packed. A packed pair's mapped pages are read once, at
    /// load.
    package var byteCount: Int {
        var bytes = heapBytes
        for layer in 0..<layerCount {
            for matrix in LayerMatrix.allCases where packed?.entry(layer: layer, matrix) == nil {
                if let p = pair(layer: layer, matrix) { bytes += p.a.byteCount + p.b.byteCount }
            }
        }
        return bytes
    }

    /// Memory the adapter holds beside its mapped file: the packed pairs.
    package var heapBytes: Int { packed?.byteCount ?? 0 }

    /// The multiplier of B·(A·x) for a pair of `rank` at user `scale` (llama.cpp's rule).
    @inline(__always) package func multiplier(scale: Float, rank: Int) -> Float {
        alpha == 0 ? scale : scale * alpha / Float(rank)
    }

    /// Checks the adapter fits `model` (what the load checked, for a model it was not loaded for).
    package func validate(for model: any DecoderModel) throws(ModelError) {
        guard architecture == model.config.architecture else {
            throw .adapterArchitectureMismatch(adapter: architecture.rawValue, model: model.config.architecture.rawValue)
        }
        for layer in 0..<layerCount {
            for matrix in LayerMatrix.allCases {
                guard let p = pair(layer: layer, matrix) else { continue }
                guard layer < model.config.layerCount else {
                    throw .adapterTargetUnsupported(tensor: "blk.\(layer).\(matrix.rawValue).weight")
                }
                try Self.check(p, against: model.weights.layers[layer][matrix: matrix])
            }
        }
    }

    /// `blk.N.<stem>.weight` → (N, matrix).
    private static func parseTarget(_ name: String) -> (Int, LayerMatrix)? {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "blk", parts[3] == "weight",
              let layer = Int(parts[1]), layer >= 0, let matrix = LayerMatrix(rawValue: String(parts[2])) else { return nil }
        return (layer, matrix)
    }

    private static func loadPair(file: GGUFFile, target: String) throws(ModelError) -> Pair {
        func load(_ name: String) throws(ModelError) -> TensorView {
            let t: TensorView
            do { t = try file.tensor(name) } catch { throw .format(error) }
            guard [.f32, .f16, .q8_0].contains(t.type) else { throw .unsupportedTensorType(tensor: name, type: t.type.description) }
            guard t.shape.count == 2, t.shape.allSatisfy({ $0 > 0 }) else {
                throw .shapeMismatch(tensor: name, expected: [], found: t.shape)
            }
            return t
        }
        let a = try load(target + ".lora_a"), b = try load(target + ".lora_b")
        // A is [in, r] and B is [r, out]: the ranks must agree.
        guard a.shape[1] == b.shape[0] else {
            throw .shapeMismatch(tensor: b.name, expected: [a.shape[1], b.shape[1]], found: b.shape)
        }
        return Pair(a: a, b: b)
    }

    private static func check(_ p: Pair, against w: TensorView) throws(ModelError) {
        let (inputs, outputs) = (w.shape[0], w.shape.dropFirst().reduce(1, *))
        guard p.inputs == inputs else {
            throw .shapeMismatch(tensor: p.a.name, expected: [inputs, p.rank], found: p.a.shape)
        }
        guard p.outputs == outputs else {
            throw .shapeMismatch(tensor: p.b.name, expected: [p.rank, outputs], found: p.b.shape)
        }
    }
}

/// An adapter and the scale one request applies it at. Equal when it is the same loaded
/// adapter at the same scale (a session keeps its cache only while its adapters are equal).
package struct ScaledAdapter: Sendable, Equatable {
    package let adapter: LoRAAdapter
    package let scale: Float

    package init(_ adapter: LoRAAdapter, scale: Float = 1) {
        self.adapter = adapter
        self.scale = scale
    }

    package static func == (l: ScaledAdapter, r: ScaledAdapter) -> Bool {
        l.adapter === r.adapter && l.scale == r.scale
    }
}
