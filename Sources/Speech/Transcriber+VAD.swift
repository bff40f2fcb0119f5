import Audio

extension Transcriber {
    /// faster-whisper's `vad_filter`: Silero VAD finds the speech (with its gating defaults:
    /// 2 s of silence to split, 400 ms of padding), only those chunks are concatenated and
    /// transcribed, and segment times are mapped back to the original audio. Silence in gives
    /// no segments without running Whisper at all.
    package func transcribe(_ clip: AudioClip, options: TranscriptionOptions, speechOnly vad: VoiceActivityDetector,
                            isCancelled: () -> Bool = { false },
                            onSegment: (TranscriptionSegment) -> Void = { _ in }) throws(SpeechError) -> Transcription {
        let samples: [Float]
        do { samples = try clip.resampled(to: WhisperFeatureExtractor.sampleRate).samples } catch { throw .audio(error) }
        let saved = vad.options
        vad.options = Self.gatingOptions
        let chunks = vad.detect(samples)
        vad.options = saved
        let duration = Double(samples.count) / Double(WhisperFeatureExtractor.sampleRate)
        guard !chunks.isEmpty else {
            return Transcription(language: options.language ?? "en", languageProbability: 0, duration: duration, segments: [])
        }
        var speech: [Float] = []
        for c in chunks { speech += samples[c.start..<c.end] }
        let map = SpeechTimeMap(chunks: chunks)
        var restored: [TranscriptionSegment] = []
        let inner = try transcribe(samples: speech, options: options, isCancelled: isCancelled) { segment in
            var s = segment
            s.start = map.originalTime(s.start, isEnd: false)
            s.end = map.originalTime(s.end, isEnd: true)
            if !s.words.isEmpty {
                // Both ends of a word move with the chunk its middle falls in.
                for i in s.words.indices {
                    let chunk = map.chunkIndex((s.words[i].start + s.words[i].end) / 2)
                    s.words[i].start = map.originalTime(s.words[i].start, chunk: chunk)
                    s.words[i].end = map.originalTime(s.words[i].end, chunk: chunk)
                }
                s.start = s.words[0].start
                s.end = s.words[s.words.count - 1].end
            }
            restored.append(s)
            onSegment(s)
        }
        return Transcription(language: inner.language, languageProbability: inner.languageProbability, duration: duration,
                             segments: restored)
    }

    /// faster-whisper's `VadOptions` defaults for gating transcription.
    package static var gatingOptions: VADOptions {
        var o = VADOptions()
        o.minSpeechDurationMs = 0
        o.minSilenceDurationMs = 2000
        o.speechPadMs = 400
        return o
    }
}

/// Maps a time in the concatenated speech chunks back to the original audio
/// (faster-whisper's `SpeechTimestampsMap`): add the silence removed before the chunk the
/// time falls in; a time exactly at a chunk's end belongs to that chunk when it is an end.
struct SpeechTimeMap {
    private var chunkEnds: [Int] = []
    private var silenceBefore: [Double] = []

    init(chunks: [SpeechSegment]) {
        var previousEnd = 0, silent = 0
        for c in chunks {
            silent += c.start - previousEnd
            previousEnd = c.end
            chunkEnds.append(c.end - silent)
            silenceBefore.append(Double(silent) / 16_000)
        }
    }

    func originalTime(_ time: Double, isEnd: Bool) -> Double {
        let sample = Int(time * 16_000)
        var index: Int
        if isEnd, let exact = chunkEnds.firstIndex(of: sample) {
            index = exact
        } else {
            index = chunkEnds.firstIndex { $0 > sample } ?? chunkEnds.count
            index = min(index, chunkEnds.count - 1)
        }
        return originalTime(time, chunk: index)
    }

    /// The chunk a time in the concatenated speech falls in.
    func chunkIndex(_ time: Double) -> Int {
        let sample = Int(time * 16_000)
        return min(chunkEnds.firstIndex { $0 > sample } ?? chunkEnds.count, chunkEnds.count - 1)
    }

    /// `time` moved by the silence removed before `chunk`.
    func originalTime(_ time: Double, chunk: Int) -> Double {
        ((silenceBefore[chunk] + time) * 100).rounded() / 100
    }
}
