/// What `synthesisStream` yields: audio sentence by sentence, then the metrics once.
public enum SpeechSynthesisEvent: Sendable, Equatable {
    case audio(SpeechAudioChunk)
    case finished(SpeechMetrics)
}
