import Foundation
import Imaging

/// The result of culling a set of photos: bursts with their frames ranked best first.
package struct CullReport: Sendable {
    package struct Frame: Sendable, Equatable {
        package let path: String
        package let quality: FrameQuality
        package let captureTime: String?
        /// Why it ranks where it does, in words.
        package let reason: String
    }

    package struct Group: Sendable, Equatable {
        /// Ranked best first; `files[0]` is the pick.
        package let files: [Frame]
        package var pick: String { files[0].path }
    }

    package let groups: [Group]
    /// Files that could not be used, each naming the file.
    package let failures: [PhotosError]
    package let capability: PhotoSimilarityCapability
}

/// Decodes a folder's photos in parallel, groups them into bursts (`BurstGrouping`) and ranks
/// each burst by `FrameQuality.score` (sharpness discounted by clipping), best first. With face
/// models, a burst in which any frame shows a face is ranked by its faces instead
/// (`FaceFacts.score`: the face box's sharpness, discounted when the eyes look closed).
package struct PhotoCuller: Sendable {
    package let service: PhotoSimilarityService
    package var maxGapSeconds: Double
    package var faceModels: FaceModels?

    package init(service: PhotoSimilarityService, maxGapSeconds: Double = 2.0, faceModels: FaceModels? = nil) {
        self.service = service
        self.maxGapSeconds = maxGapSeconds
        self.faceModels = faceModels
    }

    package func cull(_ paths: [String], threads: Int,
                      progress: (@Sendable (Int, Int) -> Void)? = nil) throws(PhotosError) -> CullReport {
        let capability = service.capability
        let results = service.facts(for: paths, threads: threads, progress: progress)
        var frames: [(path: String, facts: PhotoFacts)] = []
        var failures: [PhotosError] = []
        for (path, result) in zip(paths, results) {
            switch result {
            case .success(let facts): frames.append((path, facts))
            case .failure(let error): failures.append(error)
            }
        }
        // A backend swap during the scan leaves descriptors of two backends: never mix them.
        if case .superseded(let generation, let current)? = failures.first(where: {
            if case .superseded = $0 { return true } else { return false }
        }) {
            throw .superseded(generation: generation, current: current)
        }
        let grouping = BurstGrouping(maxGapSeconds: maxGapSeconds, threshold: service.backend.sameSceneThreshold)
        let groups = try grouping.groups(frames).map { indices in
            let members = indices.map { frames[$0] }
            return Self.rank(members, faces: members.count > 1 ? faceFacts(members.map(\.path), threads: threads) : [:])
        }
        return CullReport(groups: groups, failures: failures, capability: capability)
    }

    /// Face facts of a burst's frames (none without face models; a frame that cannot be decoded
    /// again or run is left out and ranks by its frame quality).
    func faceFacts(_ paths: [String], threads: Int) -> [String: FaceFacts] {
        guard let models = faceModels else { return [:] }
        var facts: [String: FaceFacts] = [:]
        for path in paths {
            guard let image = try? ImageDecoder().decode(fileAt: path).image,
                  let f = try? FaceFacts.of(image, detector: models.detector, mesh: models.mesh, threads: threads) else { continue }
            facts[path] = f
        }
        return facts
    }

    /// Orders a burst best first and says why: by faces when any frame has one (face score, then
    /// frame score, then path; frames without faces last), else by frame quality.
    static func rank(_ members: [(path: String, facts: PhotoFacts)], faces: [String: FaceFacts]) -> CullReport.Group {
        guard members.count > 1, members.contains(where: { (faces[$0.path]?.faces ?? 0) > 0 }) else { return rank(members) }
        func key(_ path: String) -> Double { (faces[path]?.faces ?? 0) > 0 ? faces[path]?.score ?? 0 : -1 }
        let ordered = members.sorted {
            let a = key($0.path), b = key($1.path)
            if a != b { return a > b }
            let qa = $0.facts.quality, qb = $1.facts.quality
            if qa.score != qb.score { return qa.score > qb.score }
            return $0.path < $1.path
        }
        let files = ordered.enumerated().map { rank, m -> CullReport.Frame in
            let q = m.facts.quality
            var reason: String
            if let f = faces[m.path], f.faces > 0 {
                reason = String(format: "face sharpness %.1f", f.sharpness ?? 0)
                if let ear = f.eyeAspectRatio {
                    reason += f.eyesClosed ? String(format: ", eyes look closed (EAR %.2f), ranked down", ear)
                                           : String(format: ", eyes open (EAR %.2f)", ear)
                }
            } else {
                reason = "no face found"
            }
            reason += String(format: "; sharpness %.1f, clipped %.1f%%", q.sharpness, q.clipping * 100)
            if rank == 0 {
                let closedElsewhere = ordered.dropFirst().contains { faces[$0.path]?.eyesClosed == true }
                reason = "sharpest face of \(ordered.count)" + (closedElsewhere ? " with eyes open" : "") + "; " + reason
            } else {
                reason = "rank \(rank + 1) of \(ordered.count); " + reason
            }
            return CullReport.Frame(path: m.path, quality: q, captureTime: m.facts.captureText, reason: reason)
        }
        return CullReport.Group(files: files)
    }

    /// Orders a burst best first (score, then sharpness, then path) and says why.
    static func rank(_ members: [(path: String, facts: PhotoFacts)]) -> CullReport.Group {
        let ordered = members.sorted {
            let a = $0.facts.quality, b = $1.facts.quality
            if a.score != b.score { return a.score > b.score }
            if a.sharpness != b.sharpness { return a.sharpness > b.sharpness }
            return $0.path < $1.path
        }
        let sharpest = ordered.map(\.facts.quality.sharpness).max() ?? 0
        let files = ordered.enumerated().map { rank, m -> CullReport.Frame in
            let q = m.facts.quality
            var reason = String(format: "sharpness %.1f, clipped %.1f%%", q.sharpness, q.clipping * 100)
            if ordered.count == 1 {
                reason = "single frame; " + reason
            } else if rank == 0 {
                reason = (q.sharpness >= sharpest ? "sharpest of \(ordered.count)" : "best score of \(ordered.count) (sharper frames are clipped)") + "; " + reason
            } else {
                reason = "rank \(rank + 1) of \(ordered.count); " + reason
            }
            return CullReport.Frame(path: m.path, quality: q, captureTime: m.facts.captureText, reason: reason)
        }
        return CullReport.Group(files: files)
    }
}

/// Finding photos in a folder.
package enum PhotoFolder {
    /// Extensions decoded: JPEG, PNG, and the TIFF-based raw formats.
    package static let extensions: Set<String> = ["jpg", "jpeg", "jpe", "png", "arw", "nef", "cr2", "dng", "tif", "tiff"]

    /// Image files under `directory` (recursively, hidden entries skipped), sorted by path.
    package static func imagePaths(in directory: String) throws(PhotosError) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue,
              let walker = FileManager.default.enumerator(at: URL(fileURLWithPath: directory),
                                                          includingPropertiesForKeys: [.isRegularFileKey],
                                                          options: [.skipsHiddenFiles]) else {
            throw .notADirectory(path: directory)
        }
        var paths: [String] = []
        for case let url as URL in walker where extensions.contains(url.pathExtension.lowercased()) {
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { paths.append(url.path) }
        }
        return paths.sorted()
    }
}

/// Nearest photos by descriptor similarity.
package enum PhotoSearch {
    /// The `k` most similar of `candidates` to `query` (the query's own path excluded), best first.
    package static func nearest(to query: PhotoDescriptor, queryPath: String, among candidates: [(path: String, descriptor: PhotoDescriptor)],
                                k: Int) throws(PhotosError) -> [(path: String, similarity: Float)] {
        var scored: [(path: String, similarity: Float)] = []
        for c in candidates where c.path != queryPath {
            scored.append((c.path, try query.similarity(to: c.descriptor)))
        }
        return Array(scored.sorted { $0.similarity != $1.similarity ? $0.similarity > $1.similarity : $0.path < $1.path }.prefix(k))
    }
}
