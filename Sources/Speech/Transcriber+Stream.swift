import Foundation

/// Live transcription as a stream: feeds `audio` (16 kHz mono chunks, e.g. 100 ms from a
/// microphone) to a `StreamingTranscriber` on one producer task and yields its partial and
/// final text, then `.finished` with latency figures. Cancelling the consumer cancels the task
/// before its next pass.
package func transcribeStream(_ streaming: StreamingTranscriber, audio: AsyncStream<[Float]>)
    -> AsyncThrowingStream<TranscriptionStreamEvent, Error> {
    let (stream, continuation) = AsyncThrowingStream<TranscriptionStreamEvent, Error>.makeStream()
    let box = StreamingBox(streaming)
    let task = Task.detached {
        do {
            for await chunk in audio {
                if Task.isCancelled { throw SpeechError.cancelled }
                for event in try box.streaming.feed(chunk) { continuation.yield(event) }
            }
            if Task.isCancelled { throw SpeechError.cancelled }
            for event in try box.streaming.finish() { continuation.yield(event) }
            continuation.finish()
        } catch {
            continuation.finish(throwing: error)
        }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream
}

/// Carries a streaming transcriber into the producer task.
///
/// `@unchecked Sendable`: while the stream is live only the producer touches it; callers must
/// not use it until the stream has finished.
final class StreamingBox: @unchecked Sendable {
    let streaming: StreamingTranscriber
    init(_ streaming: StreamingTranscriber) { self.streaming = streaming }
}
