import Foundation
import Imaging
import Models

/// PP-OCR's orientation classifier and CRNN-style recogniser with RapidOCR 1.4.4's batching
/// (golden/vision2/README.md, "OCR: RapidOCR pipeline (exact)", steps 11–13): crops height 48,
/// values (u / 255 - 0.5) / 0.5 in float32, zero padding on the right, CTC greedy decoding.
package struct TextRecognition {
    static let height = 48
    static let classifierWidth = 192
    static let recogniserWidth = 320
    static let batchSize = 6
    static let flipThreshold: Float = 0.9

    let classifier: ONNXGraph
    let recogniser: ONNXGraph
    /// Class index → text: "blank" at 0, the model's `character` list, then " " (RapidOCR's CTCLabelDecode).
    let classes: [String]

    init(classifier: ONNXGraph, recogniser: ONNXGraph) throws(PhotosError) {
        guard let list = recogniser.metadata["character"], !list.isEmpty else {
            throw .backendUnavailable(name: "ppocr-v4-rec", reason: "the model has no 'character' metadata")
        }
        // str.splitlines() on this list gives the same as splitting on "\n" (no \r or other breaks).
        var lines = list.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        self.classifier = classifier
        self.recogniser = recogniser
        self.classes = ["blank"] + lines + [" "]
    }

    /// t = float32(u) / 255; t -= 0.5; t /= 0.5, all in float32.
    package static let valueMap: [Float] = (0..<256).map { u in
        var t = Float(u) / 255
        t -= 0.5
        t /= 0.5
        return t
    }

    /// `image` resized to height 48 and width min(maxWidth, ceil(48 · w / h)), as a (3, 48, padTo)
    /// B, G, R tensor padded with zeros on the right.
    static func input(_ image: RGBImage, maxWidth: Int, padTo: Int) -> [Float] {
        let ratio = Double(image.width) / Double(image.height)
        let wanted = Int((Double(height) * ratio).rounded(.up))
        let width = max(1, min(wanted, maxWidth))
        let resized = FixedPointLinearResize.resize(image, width: width, height: height)
        var out = [Float](repeating: 0, count: 3 * height * padTo)
        for y in 0..<height {
            for x in 0..<width {
                let p = (y * width + x) * 3
                for c in 0..<3 { out[(c * height + y) * padTo + x] = valueMap[Int(resized.pixels[p + 2 - c])] }
            }
        }
        return out
    }

    /// Crop indices sorted by aspect ratio w / h (NumPy's argsort; stable for these short lists).
    static func byAspect(_ crops: [RGBImage]) -> [Int] {
        crops.indices.sorted {
            let a = Double(crops[$0].width) / Double(crops[$0].height), b = Double(crops[$1].width) / Double(crops[$1].height)
            return a < b || (a == b && $0 < $1)
        }
    }

    /// Step 11: (label 0 or 180, its probability) per crop; crops read as upside down with
    /// probability > 0.9 are turned in place.
    func classify(_ crops: inout [RGBImage], threads: Int) throws(ModelError) -> [(label: Int, score: Float)] {
        var results = [(label: Int, score: Float)](repeating: (0, 0), count: crops.count)
        for index in Self.byAspect(crops) {
            let input = Self.input(crops[index], maxWidth: Self.classifierWidth, padTo: Self.classifierWidth)
            let outputs = try classifier.run([classifier.inputNames[0]: GraphTensor(shape: [1, 3, Self.height, Self.classifierWidth], floats: input)], threads: threads)
            guard let probabilities = outputs[classifier.outputNames[0]]?.floats, probabilities.count == 2 else {
                throw .invalidGraphValue(node: classifier.outputNames[0], detail: "cls output is not 2 probabilities")
            }
            let label = probabilities[1] > probabilities[0] ? 1 : 0
            results[index] = (label * 180, probabilities[label])
            if label == 1, probabilities[1] > Self.flipThreshold { crops[index] = crops[index].rotated180() }
        }
        return results
    }

    /// One recognised crop: text, score, and the batch geometry it was read with.
    struct Reading {
        var text: String
        var score: Double
        var inputWidth: Int
        /// What CTC decoding saw besides the text (`Decoded`).
        var decoded: Decoded
    }

    /// Greedy CTC decoding of one crop: the emitted classes with the step each was emitted at,
    /// and between each two the space class's highest probability over the steps between them.
    package struct Decoded: Sendable, Equatable {
        package var pieces: [String] = []
        package var steps: [Int] = []
        package var probabilities: [Float] = []
        /// spaceBetween[i]: the space class's peak probability strictly between pieces i and i + 1.
        package var spaceBetween: [Float] = []
        package var stepCount = 0

        package init(pieces: [String] = [], steps: [Int] = [], probabilities: [Float] = [], spaceBetween: [Float] = [], stepCount: Int = 0) {
            self.pieces = pieces
            self.steps = steps
            self.probabilities = probabilities
            self.spaceBetween = spaceBetween
            self.stepCount = stepCount
        }

        package var text: String { pieces.joined() }

        /// Below this the space class's peak between two characters is noise, not a space.
        static let spaceEvidence: Float = 0.1

        /// `text` with the spaces greedy decoding dropped put back: between two characters
        /// (neither a space) where the space class rose to at least `spaceEvidence` on a step
        /// between them and they lie at least as far apart as the line's median spacing of
        /// neighbouring characters. Greedy decoding keeps a step's most probable class only, so a narrow
        /// space beside punctuation or digits ("Invoice #2024", "Call +1 (555)") loses to blank
        /// although the model saw it; RapidOCR reads those without the space.
        package var spacedText: String {
            guard pieces.count > 2 else { return text }
            var gaps: [Int] = []
            for i in 0..<(pieces.count - 1) where pieces[i] != " " && pieces[i + 1] != " " { gaps.append(steps[i + 1] - steps[i]) }
            guard !gaps.isEmpty else { return text }
            let median = gaps.sorted()[gaps.count / 2]
            var out = pieces[0]
            for i in 1..<pieces.count {
                if pieces[i - 1] != " ", pieces[i] != " ", spaceBetween[i - 1] >= Self.spaceEvidence, steps[i] - steps[i - 1] >= median {
                    out += " "
                }
                out += pieces[i]
            }
            return out
        }
        package var score: Double { probabilities.isEmpty ? 0 : probabilities.reduce(0.0) { $0 + Double($1) } / Double(probabilities.count) }
    }

    /// Steps 12–13: crops in batches of six by aspect ratio; each batch padded to the width of its widest.
    func recognise(_ crops: [RGBImage], threads: Int) throws(ModelError) -> [Reading] {
        var results = [Reading](repeating: Reading(text: "", score: 0, inputWidth: 0, decoded: Decoded()), count: crops.count)
        let order = Self.byAspect(crops)
        for start in stride(from: 0, to: order.count, by: Self.batchSize) {
            let batch = order[start..<min(start + Self.batchSize, order.count)]
            var maxRatio = Double(Self.recogniserWidth) / Double(Self.height)
            for index in batch { maxRatio = max(maxRatio, Double(crops[index].width) / Double(crops[index].height)) }
            let width = Int(Double(Self.height) * maxRatio)
            for index in batch {
                // One crop at a time: every operator acts per image, so this equals the batched run.
                let input = Self.input(crops[index], maxWidth: width, padTo: width)
                let outputs = try recogniser.run([recogniser.inputNames[0]: GraphTensor(shape: [1, 3, Self.height, width], floats: input)], threads: threads)
                guard let output = outputs[recogniser.outputNames[0]], let probabilities = output.floats,
                      output.shape.count == 3, output.shape[2] == classes.count else {
                    throw .invalidGraphValue(node: recogniser.outputNames[0], detail: "rec output is not (1, T, \(classes.count))")
                }
                let decoded = decode(probabilities, steps: output.shape[1])
                results[index] = Reading(text: decoded.text, score: decoded.score, inputWidth: width, decoded: decoded)
            }
        }
        return results
    }

    /// CTC greedy decoding: per step the first most probable class; a step is kept when its class
    /// is not blank (0) and differs from the previous step's; score = mean of the kept probabilities.
    func decode(_ probabilities: [Float], steps: Int) -> Decoded {
        let n = classes.count, space = n - 1
        var decoded = Decoded(stepCount: steps)
        var previous = -1, spacePeak: Float = 0
        for t in 0..<steps {
            var best = 0, bestValue = probabilities[t * n]
            for c in 1..<n where probabilities[t * n + c] > bestValue { best = c; bestValue = probabilities[t * n + c] }
            if best != 0, best != previous {
                if !decoded.pieces.isEmpty { decoded.spaceBetween.append(spacePeak) }
                decoded.pieces.append(classes[best])
                decoded.steps.append(t)
                decoded.probabilities.append(bestValue)
                spacePeak = 0
            } else if best == 0 {
                spacePeak = max(spacePeak, probabilities[t * n + space])
            }
            previous = best
        }
        return decoded
    }
}

extension RGBImage {
    /// The image turned 180 degrees.
    func rotated180() -> RGBImage {
        var out = [UInt8](repeating: 0, count: pixels.count)
        let count = width * height
        for p in 0..<count { for c in 0..<3 { out[(count - 1 - p) * 3 + c] = pixels[p * 3 + c] } }
        return RGBImage(width: width, height: height, pixels: out)
    }

    /// The image turned 90 degrees counter-clockwise (NumPy's `rot90`).
    func rotatedCounterClockwise() -> RGBImage {
        var out = [UInt8](repeating: 0, count: pixels.count)
        // out is height (= old width) rows of (old height) pixels: out(i, j) = in(j, w - 1 - i).
        for i in 0..<width {
            for j in 0..<height {
                for c in 0..<3 { out[(i * height + j) * 3 + c] = pixels[(j * width + (width - 1 - i)) * 3 + c] }
            }
        }
        return RGBImage(width: height, height: width, pixels: out)
    }
}
