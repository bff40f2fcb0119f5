import Imaging
import Models

/// One piece of text found in an image.
package struct TextLine: Sendable, Equatable {
    /// The recognised text: `rawText` with dropped spaces restored and, where this box overlaps
    /// the one before it on the same line, the letters both boxes read kept once.
    package var text: String
    /// The text as greedy CTC decoding gives it, RapidOCR's reading.
    package var rawText: String
    /// Mean probability of the recognised characters (0...1).
    package var score: Double
    /// Corners top-left, top-right, bottom-right, bottom-left in image pixels.
    package var box: [SIMD2<Float>]
    /// Whether the score reaches RapidOCR's `text_score` (0.5); the rest are kept for inspection.
    package var kept: Bool
    /// Orientation classifier: 0 or 180, its probability, and whether the crop was turned.
    package var orientation: Int
    package var orientationScore: Float
    package var turned: Bool
    /// The straightened crop's width and height before any turn, and the rec input width.
    package var cropSize: [Int]
    package var recognitionWidth: Int
    /// The recogniser's per-step evidence behind `text`.
    package var decoded: TextRecognition.Decoded

    /// A kept piece read upright with `decoded`'s text as read, for assembling lines.
    package init(decoded: TextRecognition.Decoded, box: [SIMD2<Float>]) {
        self.init(text: decoded.spacedText, rawText: decoded.text, score: decoded.score, box: box, kept: true, orientation: 0, orientationScore: 1,
                  turned: false, cropSize: [], recognitionWidth: 0, decoded: decoded)
    }

    init(text: String, rawText: String, score: Double, box: [SIMD2<Float>], kept: Bool, orientation: Int, orientationScore: Float,
         turned: Bool, cropSize: [Int], recognitionWidth: Int, decoded: TextRecognition.Decoded) {
        self.text = text
        self.rawText = rawText
        self.score = score
        self.box = box
        self.kept = kept
        self.orientation = orientation
        self.orientationScore = orientationScore
        self.turned = turned
        self.cropSize = cropSize
        self.recognitionWidth = recognitionWidth
        self.decoded = decoded
    }
}

/// Reads text in images with the three PP-OCR models, following RapidOCR 1.4.4 step for step
/// (golden/vision2/README.md, "OCR: RapidOCR pipeline (exact)"): detect, straighten each box,
/// fix upside-down lines, recognise, and map the boxes back to the image.
package final class TextReader: Sendable {
    package static let detectorId = "ppocr-v4-det"
    package static let classifierId = "ppocr-v4-cls"
    package static let recogniserId = "ppocr-v4-rec"
    static let maxSide = 2000, minSide = 30, letterboxMinHeight = 30, maxAspect = 8
    static let textScore = 0.5

    let detection: TextDetection
    let recognition: TextRecognition

    package convenience init(detector: String, classifier: String, recogniser: String) throws(PhotosError) {
        func load(_ path: String, _ id: String) throws(PhotosError) -> ONNXGraph {
            do { return try ONNXGraph(path: path) } catch { throw .backendUnavailable(name: id, reason: "\(path): \(error)") }
        }
        try self.init(detector: try load(detector, Self.detectorId), classifier: try load(classifier, Self.classifierId),
                      recogniser: try load(recogniser, Self.recogniserId))
    }

    /// The reader over loaded networks (the runtime's resident ones, shared by every reader).
    package init(detector: ONNXGraph, classifier: ONNXGraph, recogniser: ONNXGraph) throws(PhotosError) {
        for (graph, id) in [(detector, Self.detectorId), (classifier, Self.classifierId), (recogniser, Self.recogniserId)] {
            guard graph.inputNames.count == 1, !graph.outputNames.isEmpty else {
                throw .backendUnavailable(name: id, reason: "\(graph.inputNames.count) graph inputs and \(graph.outputNames.count) outputs, expected 1 and at least 1")
            }
        }
        detection = TextDetection(graph: detector)
        recognition = try TextRecognition(classifier: classifier, recogniser: recogniser)
    }

    /// The text in the image file at `path` (decoded upright), in reading order, including
    /// low-score boxes (`kept` false).
    package func read(fileAt path: String, threads: Int) throws(PhotosError) -> [TextLine] {
        let image: RGBImage
        do { image = try ImageDecoder().decode(fileAt: path).image } catch { throw .image(error) }
        return try read(image, threads: threads)
    }

    /// Every text box found in `image`, in reading order, including low-score ones (`kept` false).
    package func read(_ image: RGBImage, threads: Int) throws(PhotosError) -> [TextLine] {
        do { return try run(image, threads: threads) } catch { throw .recognition(reason: error.description) }
    }

    private func run(_ original: RGBImage, threads: Int) throws(ModelError) -> [TextLine] {
        // Step 2: global size limits.
        var image = original
        var ratio = (x: 1.0, y: 1.0)
        if max(image.width, image.height) > Self.maxSide || min(image.width, image.height) < Self.minSide {
            let long = max(image.width, image.height) > Self.maxSide
            let scale = long ? Double(Self.maxSide) / Double(max(image.width, image.height)) : Double(Self.minSide) / Double(min(image.width, image.height))
            func snap(_ side: Int) -> Int { max(32, Int((Double(Int(Double(side) * scale)) / 32).rounded(.toNearestOrEven)) * 32) }
            let (w, h) = (snap(image.width), snap(image.height))
            ratio = (Double(image.width) / Double(w), Double(image.height) / Double(h))
            image = FixedPointLinearResize.resize(image, width: w, height: h)
        }
        // Step 3: pad short or very wide images with black rows above and below.
        var padding = 0
        if image.height <= Self.letterboxMinHeight || Double(image.width) / Double(image.height) > Double(Self.maxAspect) {
            let target = max(Int(Double(image.width) / Double(Self.maxAspect)), Self.letterboxMinHeight) * 2
            padding = Int(Double(abs(target - image.height)) / 2)
            image = image.padded(rows: padding)
        }
        // Steps 4–9.
        let (map, width, height) = try detection.probabilities(image, threads: threads)
        let raw = TextDetection.boxes(map: map, width: width, height: height, destWidth: image.width, destHeight: image.height)
        let boxes = TextDetection.readingOrder(TextDetection.filtered(raw, width: image.width, height: image.height))
        guard !boxes.isEmpty else { return [] }
        // Step 10: straighten each box; tall crops are turned to lie flat.
        var crops: [RGBImage] = []
        var sizes: [[Int]] = []
        for box in boxes {
            func length(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { Double(Float(((a - b) * (a - b)).sum().squareRoot())) }
            let w = Int(max(length(box[0], box[1]), length(box[2], box[3])))
            let h = Int(max(length(box[0], box[3]), length(box[1], box[2])))
            guard let crop = PerspectiveWarp.crop(image, corners: box, width: max(w, 1), height: max(h, 1)) else {
                throw .invalidGraphValue(node: "crop", detail: "degenerate box \(box)")
            }
            sizes.append([crop.width, crop.height])
            crops.append(Double(crop.height) / Double(crop.width) >= 1.5 ? crop.rotatedCounterClockwise() : crop)
        }
        // Steps 11–13.
        let orientations = try recognition.classify(&crops, threads: threads)
        let readings = try recognition.recognise(crops, threads: threads)
        // Step 14: back to the original image's pixels.
        let lines = boxes.indices.map { i in
            let corners = boxes[i].map { p -> SIMD2<Float> in
                let x = max(0, min((p.x) * ratio.x, Double(original.width)))
                let y = max(0, min((p.y - Double(padding)) * ratio.y, Double(original.height)))
                return SIMD2(Float(x), Float(y))
            }
            return TextLine(text: readings[i].decoded.spacedText, rawText: readings[i].text, score: readings[i].score, box: corners, kept: readings[i].score >= Self.textScore,
                            orientation: orientations[i].label, orientationScore: orientations[i].score,
                            turned: orientations[i].label == 180 && orientations[i].score > TextRecognition.flipThreshold,
                            cropSize: sizes[i], recognitionWidth: readings[i].inputWidth, decoded: readings[i].decoded)
        }
        return Self.withoutDoubleReadings(lines)
    }

    /// The detector splits a wide line into boxes at word gaps, and two neighbouring boxes can
    /// overlap and both read the letters there ("fox jumps" + "s over the lazy"). When a kept box
    /// overlaps the kept box before it on the same line (vertical overlap of at least half the
    /// lower box's height) by at least half a character of its own width, and begins with the
    /// characters the other ends with, those are dropped from its text, as many as fit in the
    /// overlap. Boxes are axis-aligned estimates here; tilted lines rarely overlap this way.
    package static func withoutDoubleReadings(_ lines: [TextLine]) -> [TextLine] {
        var lines = lines
        var previous: Int?
        for i in lines.indices where lines[i].kept {
            defer { previous = i }
            guard let p = previous else { continue }
            let a = lines[p].box, b = lines[i].box
            let (aTop, aBottom) = (min(a[0].y, a[1].y), max(a[2].y, a[3].y)), (bTop, bBottom) = (min(b[0].y, b[1].y), max(b[2].y, b[3].y))
            let shared = min(aBottom, bBottom) - max(aTop, bTop)
            guard shared >= 0.5 * min(aBottom - aTop, bBottom - bTop) else { continue }
            let overlap = max(a[1].x, a[2].x) - min(b[0].x, b[3].x)
            let pieces = lines[i].decoded.pieces.count
            guard overlap > 0, pieces > 1 else { continue }
            let width = max(b[1].x, b[2].x) - min(b[0].x, b[3].x), character = width / Float(pieces)
            guard overlap >= 0.5 * character else { continue }
            let fit = min(Int((overlap / character).rounded()), pieces - 1)
            let before = Array(lines[p].text), after = Array(lines[i].text)
            for count in stride(from: fit, through: 1, by: -1) where count <= before.count && count < after.count {
                if before.suffix(count) == after.prefix(count) {
                    lines[i].text = String(after.dropFirst(count).drop { $0 == " " })
                    break
                }
            }
        }
        return lines
    }
}

extension RGBImage {
    /// The image with `rows` black rows added above and below.
    func padded(rows: Int) -> RGBImage {
        guard rows > 0 else { return self }
        let blank = [UInt8](repeating: 0, count: rows * width * 3)
        return RGBImage(width: width, height: height + 2 * rows, pixels: blank + pixels + blank)
    }
}
