/// Groups frames into bursts: shots taken close together in time that show the same scene.
///
/// Rule: frames with an EXIF capture time are sorted by it (then by path); a frame joins the
/// current burst when it was taken at most `maxGapSeconds` after the burst's previous frame AND
/// its similarity to some frame of the burst is at least `threshold`; otherwise it starts a new
/// burst. Time alone would merge two scenes shot in quick succession, similarity alone would
/// split a burst whose frames differ by blur (blur lowers similarity), so both must agree.
/// Frames without a capture time follow in path order and join the previous untimed burst only
/// at the stricter `untimedThreshold`, since nothing else vouches for them.
package struct BurstGrouping: Sendable, Equatable {
    package var maxGapSeconds: Double
    package var threshold: Float
    package var untimedThreshold: Float

    package init(maxGapSeconds: Double = 2.0, threshold: Float, untimedThreshold: Float? = nil) {
        self.maxGapSeconds = maxGapSeconds
        self.threshold = threshold
        self.untimedThreshold = untimedThreshold ?? (threshold + (1 - threshold) / 2)
    }

    /// The grouping a backend's `sameSceneThreshold` implies.
    package init(backend: any PhotoDescribing) {
        self.init(threshold: backend.sameSceneThreshold)
    }

    /// Groups of indices into `frames`, each in capture order; groups ordered by their first frame.
    /// Descriptors must all come from one backend.
    package func groups(_ frames: [(path: String, facts: PhotoFacts)]) throws(PhotosError) -> [[Int]] {
        let timed = frames.indices.filter { frames[$0].facts.captureSeconds != nil }.sorted {
            let a = frames[$0].facts.captureSeconds!, b = frames[$1].facts.captureSeconds!
            return a != b ? a < b : frames[$0].path < frames[$1].path
        }
        let untimed = frames.indices.filter { frames[$0].facts.captureSeconds == nil }.sorted { frames[$0].path < frames[$1].path }

        func bestSimilarity(_ i: Int, to group: [Int]) throws(PhotosError) -> Float {
            var best: Float = -1
            for j in group { best = max(best, try frames[i].facts.descriptor.similarity(to: frames[j].facts.descriptor)) }
            return best
        }
        var groups: [[Int]] = []
        var current: [Int] = []
        for i in timed {
            if let last = current.last,
               frames[i].facts.captureSeconds! - frames[last].facts.captureSeconds! <= maxGapSeconds,
               try bestSimilarity(i, to: current) >= threshold {
                current.append(i)
            } else {
                if !current.isEmpty { groups.append(current) }
                current = [i]
            }
        }
        if !current.isEmpty { groups.append(current) }
        current = []
        for i in untimed {
            if !current.isEmpty, try bestSimilarity(i, to: current) >= untimedThreshold {
                current.append(i)
            } else {
                if !current.isEmpty { groups.append(current) }
                current = [i]
            }
        }
        if !current.isEmpty { groups.append(current) }
        return groups
    }
}
