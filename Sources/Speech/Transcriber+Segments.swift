extension Transcriber {
    /// A segment cut from one window's tokens.
    struct TimedTokens {
        var start: Double
        var end: Double
        var tokens: [Int32]
    }

    /// faster-whisper's `_split_segments_by_timestamps`: consecutive timestamp tokens close a
    /// segment; a single timestamp at the end means the window's speech ended there, so the
    /// next window starts after this one; otherwise the unfinished last segment is dropped and
    /// the next window starts at the last complete segment's end. Advances `seek`.
    func splitByTimestamps(_ tokens: [Int32], timeOffset: Double, segmentSize: Int, segmentDuration: Double,
                           seek: inout Int) -> [TimedTokens] {
        let begin = tokenizer.timestampBegin
        let precision = Self.timePrecision
        let n = tokens.count
        let singleTimestampEnding = n >= 2 && tokens[n - 2] < begin && tokens[n - 1] >= begin
        let consecutive = (1..<max(1, n)).filter { tokens[$0] >= begin && tokens[$0 - 1] >= begin }
        var out: [TimedTokens] = []
        if !consecutive.isEmpty {
            var slices = consecutive
            if singleTimestampEnding { slices.append(n) }
            var last = 0
            for current in slices {
                let sliced = Array(tokens[last..<current])
                out.append(TimedTokens(start: timeOffset + Double(sliced[0] - begin) * precision,
                                       end: timeOffset + Double(sliced[sliced.count - 1] - begin) * precision,
                                       tokens: sliced))
                last = current
            }
            if singleTimestampEnding {
                seek += segmentSize
            } else {
                // Two mel frames per timestamp step.
                seek += Int(tokens[last - 1] - begin) * 2
            }
        } else {
            var duration = segmentDuration
            if let lastTimestamp = tokens.last(where: { $0 >= begin }), lastTimestamp != begin {
                duration = Double(lastTimestamp - begin) * precision
            }
            out.append(TimedTokens(start: timeOffset, end: timeOffset + duration, tokens: tokens))
            seek += segmentSize
        }
        return out
    }
}
