/// silero-vad's `get_speech_timestamps` over per-frame probabilities (512-sample frames at
/// 16 kHz): hysteresis between `threshold` and the exit threshold, a minimum silence before a
/// segment ends, a minimum speech length, optional splitting of over-long speech, then padding.
package enum SpeechTimestamps {
    package static let frameSamples = 512

    package static func segments(probabilities: [Float], sampleCount: Int, options o: VADOptions = VADOptions()) -> [SpeechSegment] {
        let rate = 16_000.0, window = Double(frameSamples)
        let minSpeech = rate * Double(o.minSpeechDurationMs) / 1000
        let pad = rate * Double(o.speechPadMs) / 1000
        let maxSpeech = rate * o.maxSpeechDurationS - window - 2 * pad
        let minSilence = rate * Double(o.minSilenceDurationMs) / 1000
        let minSilenceAtMax = rate * Double(o.minSilenceAtMaxSpeechMs) / 1000
        let exit = o.exitThreshold

        var triggered = false
        var speeches: [(start: Int, end: Int)] = []
        var current: (start: Int?, end: Int?) = (nil, nil)
        var tempEnd = 0, prevEnd = 0, nextStart = 0
        var possibleEnds: [(end: Int, duration: Int)] = []

        for (i, p) in probabilities.enumerated() {
            let sample = frameSamples * i
            if p >= o.threshold && tempEnd != 0 {
                let silence = sample - tempEnd
                if Double(silence) > minSilenceAtMax { possibleEnds.append((tempEnd, silence)) }
                tempEnd = 0
                if nextStart < prevEnd { nextStart = sample }
            }
            if p >= o.threshold && !triggered {
                triggered = true
                current.start = sample
                continue
            }
            if triggered, let start = current.start, Double(sample - start) > maxSpeech {
                if o.useMaxPossibleSilenceAtMaxSpeech, let longest = possibleEnds.max(by: { $0.duration < $1.duration }) {
                    prevEnd = longest.end
                    speeches.append((start, prevEnd))
                    current = (nil, nil)
                    nextStart = prevEnd + longest.duration
                    if nextStart < prevEnd + sample { current.start = nextStart } else { triggered = false }
                    (prevEnd, nextStart, tempEnd) = (0, 0, 0)
                    possibleEnds = []
                } else if prevEnd != 0 {
                    speeches.append((start, prevEnd))
                    current = (nil, nil)
                    if nextStart < prevEnd { triggered = false } else { current.start = nextStart }
                    (prevEnd, nextStart, tempEnd) = (0, 0, 0)
                    possibleEnds = []
                } else {
                    speeches.append((start, sample))
                    current = (nil, nil)
                    (prevEnd, nextStart, tempEnd) = (0, 0, 0)
                    triggered = false
                    possibleEnds = []
                    continue
                }
            }
            if p < exit && triggered {
                if tempEnd == 0 { tempEnd = sample }
                let silence = sample - tempEnd
                if !o.useMaxPossibleSilenceAtMaxSpeech && Double(silence) > minSilenceAtMax { prevEnd = tempEnd }
                if Double(silence) < minSilence { continue }
                if let start = current.start, Double(tempEnd - start) > minSpeech { speeches.append((start, tempEnd)) }
                current = (nil, nil)
                (prevEnd, nextStart, tempEnd) = (0, 0, 0)
                triggered = false
                possibleEnds = []
                continue
            }
        }
        if let start = current.start, Double(sampleCount - start) > minSpeech {
            speeches.append((start, sampleCount))
        }
        // Padding: half the gap between close segments, else `pad` each side.
        for i in speeches.indices {
            if i == 0 { speeches[i].start = Int(max(0, Double(speeches[i].start) - pad)) }
            if i != speeches.count - 1 {
                let gap = speeches[i + 1].start - speeches[i].end
                if Double(gap) < 2 * pad {
                    speeches[i].end += gap / 2
                    speeches[i + 1].start = max(0, speeches[i + 1].start - gap / 2)
                } else {
                    speeches[i].end = Int(min(Double(sampleCount), Double(speeches[i].end) + pad))
                    speeches[i + 1].start = Int(max(0, Double(speeches[i + 1].start) - pad))
                }
            } else {
                speeches[i].end = Int(min(Double(sampleCount), Double(speeches[i].end) + pad))
            }
        }
        return speeches.map { SpeechSegment(start: $0.start, end: $0.end) }
    }
}
