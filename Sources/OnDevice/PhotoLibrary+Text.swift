import Foundation
import Photos
import Runtime

extension PhotoLibrary {
    /// The instance's embedding model, which search by meaning uses.
    var embeddingModel: String { ai.configuration.embeddingModel }

    /// The text in the photo at `image`, as `OnDeviceAI.readText(in:)` reads it.
    public func readText(in image: URL) async throws -> [RecognizedText] { try await ai.readText(in: image) }

    /// The faces in the photo at `image` (with `mesh`, the main face's mesh, eyes and
    /// sharpness), as `OnDeviceAI.detectFaces(in:mesh:)` finds them.
    public func detectFaces(in image: URL, mesh: Bool = false) async throws -> FaceDetectionResult {
        try await ai.detectFaces(in: image, mesh: mesh)
    }

    /// The person mask of the photo at `image` and the subject's sharpness inside it, as
    /// `OnDeviceAI.segmentPerson(in:)` computes them.
    public func segmentPerson(in image: URL) async throws -> PersonMaskResult { try await ai.segmentPerson(in: image) }

    /// Reads the text in every photo under `directory` (PP-OCR v4: `ppocr-v4-det`, `-cls`,
    /// `-rec`, leased from the runtime, downloaded on first use), labels what each shows with
    /// `efficientnet-lite0` when it can be had, and embeds text and labels with the instance's
    /// embedding model when it can be had, into an index in the library's cache directory.
    /// Photos unchanged since the last run are not read again. OCR costs about three seconds
    /// a photo on two cores (`ondevice photos bench --ocr`).
    ///
    /// ```swift
    /// let photos = try await ai.photoLibrary()
    /// _ = try await photos.indexText(directory: URL(fileURLWithPath: "/photos/2024-06-15"))
    /// for match in try await photos.searchText("receipt from the bakery").matches { print(match.url.path) }
    /// ```
    public func indexText(directory: URL, progress: (@Sendable (Int, Int) -> Void)? = nil) async throws -> PhotoTextIndexing {
        let leased = try await LeasedTextReader.lease(from: runtime, threads: threads)
        var notes: [String] = []
        let labelModel = "efficientnet-lite0"
        var vision: EngineLease<ResidentVisionModel>?
        do { vision = try await runtime.lease(ResidentVisionModel.self, modelId: labelModel, options: LoadOptions()) } catch {
            notes.append("no image labels: \(labelModel) \(error)")
        }
        let labeller = vision.map { PhotoLabeller(model: $0.model.model) }
        let cache = cacheDirectory, threads = threads, reader = leased.reader
        let outcome: (paths: [String], read: Int, failures: [PhotosError], index: PhotoTextIndex)
        do {
            outcome = try await Self.offPool {
                let paths = try PhotoFolder.imagePaths(in: directory.standardizedFileURL.path)
                var index = PhotoTextIndex(directory: cache)
                let (read, failures) = index.update(paths, reader: reader, labeller: labeller, threads: threads, progress: progress)
                try index.save()
                return (paths, read, failures, index)
            }
        } catch {
            await vision?.release()
            await leased.release()
            throw error
        }
        await vision?.release()
        await leased.release()

        var index = outcome.index
        let embedder = embeddingModel
        var usedEmbedder: String? = embedder
        let pending = index.unembedded(by: embedder, among: outcome.paths)
        if !pending.isEmpty {
            do {
                let vectors = try await ai.embed(pending.map(\.document), purpose: .document)
                index.setVectors(Dictionary(uniqueKeysWithValues: zip(pending.map(\.path), vectors)), embedder: embedder)
                try index.save()
            } catch let error as OnDeviceError {
                notes.append("words only: \(embedder) \(error)")
                usedEmbedder = nil
            }
        }
        return PhotoTextIndexing(photos: outcome.paths.count, read: outcome.read, skipped: outcome.failures.map(\.description),
                                 labelModel: labeller == nil ? nil : labelModel, embeddingModel: usedEmbedder, notes: notes)
    }

    /// The `count` indexed photos (under `directory` when given) that best match `query`, by the
    /// words of their text and labels and, when the index holds vectors by the instance's
    /// embedding model, by meaning. Index photos first with `indexText(directory:)`.
    public func searchText(_ query: String, in directory: URL? = nil, count: Int = 10) async throws -> PhotoTextSearchResult {
        let index = PhotoTextIndex(directory: cacheDirectory)
        var queryVector: [Float]?
        var note: String?
        if index.embedder == embeddingModel, index.entries.values.contains(where: { $0.vector != nil }) {
            do { queryVector = try await ai.embed([query], purpose: .query).first } catch let error as OnDeviceError {
                note = "words only: \(embeddingModel) \(error)"
            }
        } else {
            note = "words only: the index has no vectors by \(embeddingModel) (run indexText with it installed)"
        }
        let hits = index.search(query, queryVector: queryVector, under: directory?.standardizedFileURL.path, k: count)
        return PhotoTextSearchResult(
            matches: hits.map {
                PhotoTextMatch(url: URL(fileURLWithPath: $0.path), score: $0.score, text: $0.text, labels: $0.labels,
                               wordScore: $0.wordScore, similarity: $0.similarity)
            },
            embeddingModel: queryVector == nil ? nil : embeddingModel, note: note)
    }
}
