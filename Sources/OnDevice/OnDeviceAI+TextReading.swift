import Foundation
import ModelStore
import Photos

/// A line or word of text read from an image.
public struct RecognizedText: Sendable, Equatable {
    /// The text as read, with the spaces greedy decoding drops restored and letters two
    /// overlapping pieces both read kept once.
    public let text: String
    /// The text exactly as greedy CTC decoding gives it (RapidOCR's reading of the same piece).
    public let rawText: String
    /// Mean probability of its characters, 0...1.
    public let confidence: Double
    /// Corners top-left, top-right, bottom-right, bottom-left as (x, y) in image pixels.
    public let corners: [SIMD2<Float>]
}

extension OnDeviceAI {
    /// Reads the text in the image at `image` with the PP-OCR v4 models (`ppocr-v4-det`,
    /// `ppocr-v4-cls`, `ppocr-v4-rec`), in reading order: top to bottom, then left to right.
    /// Pieces read with confidence below 0.5 are left out.
    ///
    /// ```swift
    /// for line in try await ai.readText(in: URL(fileURLWithPath: "receipt.png")) { print(line.text) }
    /// ```
    public func readText(in image: URL) async throws -> [RecognizedText] {
        let runtime = try await runtime()
        var paths: [String] = []
        for id in [TextReader.detectorId, TextReader.classifierId, TextReader.recogniserId] {
            guard let installed = try await runtime.store.resolve(id), let path = installed.filePaths.first else {
                throw OnDeviceError.modelUnavailable(model: id, reason: "not installed (ondevice models pull \(id))")
            }
            paths.append(path)
        }
        let threads = configuration.threads ?? ProcessInfo.processInfo.activeProcessorCount
        let file = image.standardizedFileURL.path, models = paths
        let lines = try await PhotoLibrary.offPool { () throws -> [TextLine] in
            let reader: TextReader
            do { reader = try TextReader(detector: models[0], classifier: models[1], recogniser: models[2]) } catch let error as PhotosError {
                throw OnDeviceError.modelLoadFailed(model: "ppocr-v4", reason: error.description)
            }
            do { return try reader.read(fileAt: file, threads: threads) } catch let error as PhotosError {
                throw OnDeviceError.engine(error.description)
            }
        }
        return lines.filter { $0.kept }.map { RecognizedText(text: $0.text, rawText: $0.rawText, confidence: $0.score, corners: $0.box) }
    }
}
