import Formats
import Foundation
import Kernels
import Tensor

/// Silero VAD v6 (16 kHz) from `silero_vad_16k.safetensors`, after the wheel's readable port
/// `silero_vad/tinygrad_model.py` (silero-vad 6.2.3). One call scores one frame of 512 new
/// samples preceded by the previous 64 (the context):
/// 1. reflect-pad 64 samples on the right (576 → 640);
/// 2. STFT as a convolution: 258 filters of 256 taps, stride 128 → 4 steps; magnitude of the
///    129 (real, imaginary) pairs;
/// 3. conv 129→128 (k3 s1 p1), 128→64 (k3 s2 p1), 64→64 (k3 s2 p1), 64→128 (k3 s1 p1), each + ReLU
///    (4 → 4 → 2 → 1 → 1 steps);
/// 4. an LSTM cell (128; PyTorch gate order i, f, g, o) carrying (h, c) across frames;
/// 5. ReLU(h), a 1×1 conv to one channel, sigmoid: the speech probability.
/// Immutable; the recurrent state lives in `SileroVADState`.
package final class SileroVADModel: Sendable {
    package static let frameSamples = 512
    package static let contextSamples = 64
    package static let sampleRate = 16_000

    struct Conv: Sendable {
        let weight: TensorView  // [in·k, out] as a linear map over (channel, tap) columns
        let bias: [Float]
        let inputs: Int, outputs: Int, kernel: Int, stride: Int, padding: Int
    }

    let stft: TensorView       // [256, 258]
    let convs: [Conv]
    let inputWeights: TensorView   // [128, 512]
    let hiddenWeights: TensorView  // [128, 512]
    let gateBias: [Float]          // bias_ih + bias_hh (512)
    let finalWeight: [Float]       // (128)
    let finalBias: Float
    /// Keeps the mapping alive.
    let file: SafetensorsFile

    package convenience init(path: String) throws(ModelError) {
        let file: SafetensorsFile
        do { file = try SafetensorsFile.open(path: path) } catch { throw .format(error) }
        try self.init(file: file)
    }

    package init(file: SafetensorsFile) throws(ModelError) {
        func tensor(_ name: String, _ shape: [Int]) throws(ModelError) -> TensorView {
            let t: TensorView
            do { t = try file.tensor(name) } catch { throw .format(error) }
            guard t.shape == shape else { throw .shapeMismatch(tensor: name, expected: shape, found: t.shape) }
            guard t.type == .f32 else { throw .unsupportedTensorType(tensor: name, type: t.type.description) }
            return t
        }
        func floats(_ t: TensorView) -> [Float] {
            Array(UnsafeBufferPointer(start: t.data.assumingMemoryBound(to: Float.self), count: t.elementCount))
        }
        func conv(_ name: String, _ inputs: Int, _ outputs: Int, stride: Int) throws(ModelError) -> Conv {
            let w = try tensor("\(name).weight", [3, inputs, outputs])
            let flat = TensorView(name: w.name, type: .f32, shape: [3 * inputs, outputs], data: w.data, byteCount: w.byteCount, owner: w.owner)
            return Conv(weight: flat, bias: floats(try tensor("\(name).bias", [outputs])), inputs: inputs, outputs: outputs,
                        kernel: 3, stride: stride, padding: 1)
        }
        let s = try tensor("stft_conv.weight", [256, 1, 258])
        stft = TensorView(name: s.name, type: .f32, shape: [256, 258], data: s.data, byteCount: s.byteCount, owner: s.owner)
        convs = [try conv("conv1", 129, 128, stride: 1), try conv("conv2", 128, 64, stride: 2),
                 try conv("conv3", 64, 64, stride: 2), try conv("conv4", 64, 128, stride: 1)]
        inputWeights = try tensor("lstm_cell.weight_ih", [128, 512])
        hiddenWeights = try tensor("lstm_cell.weight_hh", [128, 512])
        let bih = floats(try tensor("lstm_cell.bias_ih", [512])), bhh = floats(try tensor("lstm_cell.bias_hh", [512]))
        gateBias = zip(bih, bhh).map { $0 + $1 }
        finalWeight = floats(try tensor("final_conv.weight", [1, 128, 1]))
        finalBias = floats(try tensor("final_conv.bias", [1]))[0]
        self.file = file
    }

    /// Speech probability of one frame: `input` holds the 64 context samples then 512 new ones.
    /// Updates the state's LSTM memory.
    package func probability(_ input: UnsafePointer<Float>, state s: SileroVADState) -> Float {
        let n = Self.contextSamples + Self.frameSamples  // 576
        // 1. Reflect-pad 64 on the right: padded[n + i] = input[n - 2 - i].
        for i in 0..<n { s.padded[i] = input[i] }
        for i in 0..<64 { s.padded[n + i] = input[n - 2 - i] }
        // 2. Four overlapping 256-sample windows through the STFT filters, then magnitudes.
        for t in 0..<4 { (s.columns + t * 256).update(from: s.padded + t * 128, count: 256) }
        s.matmul.linear(stft, s.columns, s.spectrum, n: 4)  // (4, 258)
        var steps = 4
        for t in 0..<steps {
            let row = s.spectrum + t * 258
            for f in 0..<129 { s.activations[t * 129 + f] = (row[f] * row[f] + row[129 + f] * row[129 + f]).squareRoot() }
        }
        // 3. The conv stack, time-major (steps, channels).
        for conv in convs {
            steps = apply(conv, steps: steps, state: s)
        }
        // 4. LSTM cell on the single remaining step.
        s.matmul.linear(inputWeights, s.activations, s.gates, n: 1)
        s.matmul.linear(hiddenWeights, s.hidden, s.gatesHidden, n: 1)
        for j in 0..<512 { s.gates[j] += s.gatesHidden[j] + gateBias[j] }
        for j in 0..<128 {
            let i = sigmoid(s.gates[j]), f = sigmoid(s.gates[128 + j])
            let g = tanhf(s.gates[256 + j]), o = sigmoid(s.gates[384 + j])
            s.cell[j] = f * s.cell[j] + i * g
            s.hidden[j] = o * tanhf(s.cell[j])
        }
        // 5. ReLU, 1×1 conv, sigmoid.
        var logit = finalBias
        for j in 0..<128 { logit += finalWeight[j] * max(0, s.hidden[j]) }
        return sigmoid(logit)
    }

    /// One conv + ReLU over `steps` time steps in `state.activations`; returns the new step count.
    private func apply(_ conv: Conv, steps: Int, state s: SileroVADState) -> Int {
        let out = (steps + 2 * conv.padding - conv.kernel) / conv.stride + 1
        for t in 0..<out {
            let row = s.columns + t * conv.inputs * conv.kernel
            for ch in 0..<conv.inputs {
                for k in 0..<conv.kernel {
                    let i = t * conv.stride + k - conv.padding
                    row[ch * conv.kernel + k] = i >= 0 && i < steps ? s.activations[i * conv.inputs + ch] : 0
                }
            }
        }
        s.matmul.linear(conv.weight, s.columns, s.activations, n: out)
        for t in 0..<out {
            for o in 0..<conv.outputs {
                s.activations[t * conv.outputs + o] = max(0, s.activations[t * conv.outputs + o] + conv.bias[o])
            }
        }
        return out
    }

    @inline(__always) private func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }
}

/// The recurrent half of Silero VAD: LSTM memory, the last 64 input samples, scratch.
package final class SileroVADState {
    let matmul = MatMul(threads: 1)
    // Each buffer's shape: padded (640); columns (4, 387) at most; spectrum (4, 258);
    // activations (4, 129) at most; gates, gatesHidden (512); hidden, cell (128).
    let padded = UnsafeMutablePointer<Float>.allocate(capacity: 640)
    let columns = UnsafeMutablePointer<Float>.allocate(capacity: 4 * 387)
    let spectrum = UnsafeMutablePointer<Float>.allocate(capacity: 4 * 258)
    let activations = UnsafeMutablePointer<Float>.allocate(capacity: 4 * 129)
    let gates = UnsafeMutablePointer<Float>.allocate(capacity: 512)
    let gatesHidden = UnsafeMutablePointer<Float>.allocate(capacity: 512)
    let hidden = UnsafeMutablePointer<Float>.allocate(capacity: 128)
    let cell = UnsafeMutablePointer<Float>.allocate(capacity: 128)

    package init() {
        for (p, n) in [(padded, 640), (columns, 4 * 387), (spectrum, 4 * 258), (activations, 4 * 129),
                       (gates, 512), (gatesHidden, 512), (hidden, 128), (cell, 128)] {
            p.initialize(repeating: 0, count: n)
        }
    }

    deinit {
        for p in [padded, columns, spectrum, activations, gates, gatesHidden, hidden, cell] { p.deallocate() }
    }

    /// Forgets the LSTM memory (a new recording).
    package func reset() {
        hidden.update(repeating: 0, count: 128)
        cell.update(repeating: 0, count: 128)
    }
}
