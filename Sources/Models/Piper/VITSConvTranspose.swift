/// A ConvTranspose1d (HiFi-GAN's upsampling) computed as `stride` ordinary convolutions, one per
/// output phase: output step t·s + r only ever meets the taps k ≡ (r + padding) mod s, so each
/// phase is a kernel/stride-tap convolution over the input and no multiply lands on an inserted zero.
///
/// With q = t·s + r + padding, c = (r + padding) / s and r′ = (r + padding) mod s:
///   y[o][t·s + r] = b[o] + Σ_j Σ_i W[i][o][r′ + j·s] · x[i][t + c − j],  j < kernel / stride.
struct ConvTransposeLayer: Sendable {
    struct Phase: Sendable {
        let offset: Int       // input step read by tap 0 of output step 0, relative to step 0: c − (taps − 1)
        let weights: [Float]  // (out, taps, in), taps reversed so tap u reads x[t + offset + u]
    }

    let inChannels: Int
    let outChannels: Int
    let stride: Int
    let taps: Int
    let phases: [Phase]
    let bias: [Float]  // (out)

    /// `weight` in PyTorch order (in, out, kernel); the output has input length × stride steps,
    /// which needs kernel − 2·padding = stride (true for every HiFi-GAN upsampler).
    init(weight: [Float], bias: [Float], inChannels: Int, outChannels: Int, kernel: Int, stride: Int, padding: Int) {
        precondition(kernel % stride == 0 && kernel - 2 * padding == stride, "polyphase transposed conv")
        self.inChannels = inChannels
        self.outChannels = outChannels
        self.stride = stride
        self.bias = bias
        let taps = kernel / stride
        self.taps = taps
        phases = (0..<stride).map { r in
            let c = (r + padding) / stride, rr = (r + padding) % stride
            var w = [Float](repeating: 0, count: outChannels * taps * inChannels)
            for o in 0..<outChannels {
                for u in 0..<taps {
                    let k = rr + (taps - 1 - u) * stride
                    for i in 0..<inChannels { w[(o * taps + u) * inChannels + i] = weight[(i * outChannels + o) * kernel + k] }
                }
            }
            return Phase(offset: c - (taps - 1), weights: w)
        }
    }

    var byteCount: Int { 4 * (phases.reduce(0) { $0 + $1.weights.count } + bias.count) }
}
