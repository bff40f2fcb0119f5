import Foundation
import ModelStore
import Photos
import Runtime

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
    /// `ppocr-v4-cls`, `ppocr-v4-rec`, leased from the runtime, downloaded on first use), in
    /// reading order: top to bottom, then left to right. Pieces read with confidence below 0.5
    /// are left out.
    ///
    /// ```swift
    /// for line in try await ai.readText(in: URL(fileURLWithPath: "receipt.png")) { print(line.text) }
    /// ```
    public func readText(in image: URL) async throws -> [RecognizedText] {
        let leased = try await LeasedTextReader.lease(from: try await runtime(), threads: modelThreads)
        let reader = leased.reader, threads = modelThreads, file = image.standardizedFileURL.path
        let lines: [TextLine]
        do {
            lines = try await PhotoLibrary.offPool { () throws -> [TextLine] in
                do { return try reader.read(fileAt: file, threads: threads) } catch let error as PhotosError {
                    var failure = OnDeviceError(code: .invalidArgument, message: error.description, cause: error)
                    failure.path = file
                    throw failure
                }
            }
        } catch {
            await leased.release()
            throw error
        }
        await leased.release()
        return lines.filter { $0.kept }.map { RecognizedText(text: $0.text, rawText: $0.rawText, confidence: $0.score, corners: $0.box) }
    }
}

/// The three PP-OCR networks leased from the runtime (resident, counted against the memory
/// budget, shared with every other reader) and a reader over them. Release when done.
struct LeasedTextReader: Sendable {
    let reader: TextReader
    let leases: [EngineLease<ResidentONNXGraph>]

    static func lease(from runtime: OnDeviceRuntime, threads: Int) async throws -> LeasedTextReader {
        var leases: [EngineLease<ResidentONNXGraph>] = []
        do {
            for id in [TextReader.detectorId, TextReader.classifierId, TextReader.recogniserId] {
                do {
                    leases.append(try await runtime.lease(ResidentONNXGraph.self, modelId: id, options: LoadOptions(threads: threads)))
                } catch .cancelled {
                    throw OnDeviceError.cancelled
                } catch {
                    throw OnDeviceError.modelUnavailable(model: id, reason: error.description)
                }
            }
            do {
                return LeasedTextReader(reader: try TextReader(detector: leases[0].model.graph, classifier: leases[1].model.graph,
                                                               recogniser: leases[2].model.graph), leases: leases)
            } catch {
                throw OnDeviceError.modelLoadFailed(model: "ppocr-v4", reason: error.description)
            }
        } catch {
            for lease in leases { await lease.release() }
            throw error
        }
    }

    func release() async {
        for lease in leases { await lease.release() }
    }
}
