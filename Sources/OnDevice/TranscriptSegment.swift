import Speech

/// One timed span of a transcript, with what faster-whisper and OpenAI's `verbose_json` report
/// about the 30 s window that produced it.
public struct TranscriptSegment: Sendable, Equatable {
    /// 1-based index in the transcript.
    public var id: Int
    /// Mel frame (100 per second) where the window that produced it starts.
    public var seek: Int
    /// Seconds from the start of the audio.
    public var start: Double
    public var end: Double
    /// The text, with Whisper's leading space.
    public var text: String
    /// Whisper's output tokens, timestamp tokens included.
    public var tokens: [Int]
    /// Sampling temperature of the window's accepted result (0 unless decoding fell back).
    public var temperature: Double
    /// Average log-probability per token of the window's result.
    public var averageLogProbability: Double
    /// gzip compression ratio of the window's text (high means repetition).
    public var compressionRatio: Double
    /// Probability that the window holds no speech.
    public var noSpeechProbability: Double
    /// Each word and when it is spoken, when `TranscribeOptions.wordTimestamps` asked for them;
    /// empty otherwise.
    public var words: [TranscriptWord] = []
}

extension TranscriptSegment {
    init(_ s: TranscriptionSegment) {
        self.init(id: s.id, seek: s.seek, start: s.start, end: s.end, text: s.text, tokens: s.tokens.map(Int.init),
                  temperature: Double(s.temperature), averageLogProbability: s.averageLogProb, compressionRatio: s.compressionRatio,
                  noSpeechProbability: s.noSpeechProb,
                  words: s.words.map { TranscriptWord(word: $0.word, start: $0.start, end: $0.end, probability: $0.probability) })
    }
}
