import CKernels
import Foundation

/// VITS's normalizing flow between the prior and the posterior (`ResidualCouplingBlock`), run in
/// reverse: for each mean-only coupling layer, last first, flip the channels, then subtract from
/// the second half a shift predicted from the first half by a WaveNet-style stack (`WN`: gated
/// tanh·sigmoid convolutions with residual and skip outputs).
struct VITSFlow: Sendable {
    struct Coupling: Sendable {
        let pre: ConvLayer            // half → hidden
        let gates: [ConvLayer]        // hidden → 2·hidden, kernel 5
        let residualSkip: [ConvLayer] // hidden → 2·hidden (the last: hidden, skip only)
        let post: ConvLayer           // hidden → half
    }

    /// In reverse-inference order (highest index first).
    let couplings: [Coupling]

    init(_ source: VITSWeightSource) throws(ModelError) {
        var couplings: [Coupling] = []
        for index in stride(from: 31, through: 0, by: -1) where source.model.initializers["flow.flows.\(index).pre.weight"] != nil {
            let p = "flow.flows.\(index)"
            var gates: [ConvLayer] = [], residualSkip: [ConvLayer] = []
            while source.model.initializers["\(p).enc.in_layers.\(gates.count).bias"] != nil {
                gates.append(try source.conv("\(p).enc.in_layers.\(gates.count)"))
                residualSkip.append(try source.conv("\(p).enc.res_skip_layers.\(residualSkip.count)"))
            }
            guard !gates.isEmpty else { throw .format(.missingTensor(name: "\(p).enc.in_layers.0.bias")) }
            couplings.append(Coupling(pre: try source.conv(p + ".pre"), gates: gates, residualSkip: residualSkip, post: try source.conv(p + ".post")))
        }
        guard !couplings.isEmpty else { throw .format(.missingTensor(name: "flow.flows.0.pre.weight")) }
        self.couplings = couplings
    }

    var byteCount: Int {
        couplings.reduce(0) { sum, c in
            sum + c.pre.byteCount + c.post.byteCount + c.gates.reduce(0) { $0 + $1.byteCount } + c.residualSkip.reduce(0) { $0 + $1.byteCount }
        }
    }

    /// z = flow⁻¹(z_p), both (channels, frames).
    func reverse(_ input: FeatureMap, threads: Int) -> FeatureMap {
        var z = input
        let half = z.channels / 2, n = z.length
        for coupling in couplings {
            z.flipChannels()
            let x0 = z.slice(0..<half)
            var h = coupling.pre(x0, threads: threads)
            let hidden = h.channels
            var skip = FeatureMap(channels: hidden, length: n)
            for (l, gate) in coupling.gates.enumerated() {
                var a = gate(h, threads: threads)  // (2·hidden, n): tanh half, sigmoid half
                var acts = FeatureMap(uninitializedChannels: hidden, length: n)
                a.data.withUnsafeBufferPointer { ap in
                    acts.data.withUnsafeMutableBufferPointer { od_gated_tanh(ap.baseAddress!, ap.baseAddress! + hidden * n, $0.baseAddress!, Int64(hidden * n)) }
                }
                a = coupling.residualSkip[l](acts, threads: threads)
                if l < coupling.gates.count - 1 {
                    a.data.withUnsafeBufferPointer { ap in
                        h.data.withUnsafeMutableBufferPointer { hp in
                            skip.data.withUnsafeMutableBufferPointer { sp in
                                for i in 0..<hidden * n {
                                    hp[i] += ap[i]
                                    sp[i] += ap[hidden * n + i]
                                }
                            }
                        }
                    }
                } else {
                    skip.add(a)
                }
            }
            let shift = coupling.post(skip, threads: threads)
            for i in 0..<half * n { z.data[half * n + i] -= shift.data[i] }
        }
        return z
    }
}
