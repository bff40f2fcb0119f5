import Foundation
import Formats

/// VITS's stochastic duration predictor run in reverse (jaywalnut310/vits `StochasticDurationPredictor`):
/// the conditioning g = proj(DDSConv(pre(h))) from the text encoder's hidden states h, then noise
/// z (2, n) · noise_w pushed back through the flows — Flip, ConvFlow, …, Flip, and the elementwise
/// affine flow — whose first channel is log-duration. The first ConvFlow is skipped, as in the
/// reference inference (it only transforms the channel that is dropped).
struct VITSDurationPredictor: Sendable {
    struct ConvFlow: Sendable {
        let pre: ConvLayer       // 1 → filter
        let convs: VITSDDSConv
        let projection: ConvLayer  // filter → 3·bins − 1
    }

    let pre: ConvLayer
    let convs: VITSDDSConv
    let projection: ConvLayer
    /// ConvFlows in the order reverse inference applies them (highest index first).
    let flows: [ConvFlow]
    let affineMean: [Float]   // (2)
    let affineScale: [Float]  // (2), exp(−logs)
    let bins: Int
    let tailBound: Float = 5

    init(_ source: VITSWeightSource) throws(ModelError) {
        pre = try source.conv("dp.pre")
        let channels = pre.shape.outChannels
        convs = try VITSDDSConv(source, prefix: "dp.convs", channels: channels)
        projection = try source.conv("dp.proj")
        var flows: [ConvFlow] = []
        var bins = 0
        for index in stride(from: 31, through: 1, by: -1) where source.model.initializers["dp.flows.\(index).pre.weight"] != nil {
            let p = "dp.flows.\(index)"
            let flow = ConvFlow(pre: try source.conv(p + ".pre"), convs: try VITSDDSConv(source, prefix: p + ".convs", channels: channels),
                                projection: try source.conv(p + ".proj"))
            guard (flow.projection.shape.outChannels + 1) % 3 == 0 else {
                throw .shapeMismatch(tensor: p + ".proj.weight", expected: [29, channels, 1], found: [flow.projection.shape.outChannels])
            }
            bins = (flow.projection.shape.outChannels + 1) / 3
            flows.append(flow)
        }
        // Training has ConvFlows 1, 3, 5, 7…; inference drops flow 1, and exports often omit it.
        if source.model.initializers["dp.flows.1.pre.weight"] != nil { flows.removeLast() }
        guard !flows.isEmpty else { throw .format(.missingTensor(name: "dp.flows.3.pre.weight")) }
        self.flows = flows
        self.bins = bins
        affineMean = try source.floats("dp.flows.0.m", shape: [2, 1])
        affineScale = try Self.affineScale(source)
    }

    /// exp(−logs) of the elementwise affine flow: from `dp.flows.0.logs`, or the folded constant
    /// the export multiplies by right after subtracting `dp.flows.0.m`.
    private static func affineScale(_ source: VITSWeightSource) throws(ModelError) -> [Float] {
        if source.model.initializers["dp.flows.0.logs"] != nil {
            return try source.floats("dp.flows.0.logs", shape: [2, 1]).map { exp(-$0) }
        }
        let nodes = source.model.nodes
        if let sub = nodes.first(where: { $0.opType == "Sub" && $0.inputs.last == "dp.flows.0.m" }), let output = sub.outputs.first,
           let mul = nodes.first(where: { $0.opType == "Mul" && $0.inputs.contains(output) }),
           let constant = mul.inputs.first(where: { $0 != output }) {
            return try source.floats(constant, shape: [2, 1])
        }
        throw .format(.missingTensor(name: "dp.flows.0.logs"))
    }

    var byteCount: Int {
        pre.byteCount + convs.byteCount + projection.byteCount
            + flows.reduce(0) { $0 + $1.pre.byteCount + $1.convs.byteCount + $1.projection.byteCount }
    }

    /// Log-durations (n) of the phonemes whose encoder states are `hidden`; `noise` is (2, n).
    func logDurations(_ hidden: FeatureMap, noise: FeatureMap, threads: Int) -> [Float] {
        let n = hidden.length
        var g = pre(hidden, threads: threads)
        g = convs(g, conditioning: nil, threads: threads)
        g = projection(g, threads: threads)
        var z = noise  // channel 0 then 1
        let scale = 1 / Float(pre.shape.outChannels).squareRoot()
        for flow in flows {
            z.flipChannels()
            let x0 = z.slice(0..<1)
            var h = flow.pre(x0, threads: threads)
            h = flow.convs(h, conditioning: g, threads: threads)
            let params = flow.projection(h, threads: threads)  // (3·bins − 1, n)
            for t in 0..<n {
                let column = (0..<params.channels).map { params.data[$0 * n + t] }
                let widths = column[0..<bins].map { $0 * scale }, heights = column[bins..<2 * bins].map { $0 * scale }
                z.data[n + t] = VITSSpline.inverse(z.data[n + t], widths: widths[...], heights: heights[...],
                                                   derivatives: column[(2 * bins)...], tailBound: tailBound)
            }
        }
        z.flipChannels()
        return (0..<n).map { (z.data[$0] - affineMean[0]) * affineScale[0] }
    }
}
