import EngineSupport
/// Streaming synthesis. The producer runs on a compute thread of its own (a sentence takes
/// hundreds of milliseconds of kernel time, which must not hold a cooperative-pool thread);
/// cancelling the consumer stops it before the next sentence. Ends with `.finished` unless it
/// throws.
extension SpeechSynthesizer {
    package func stream(_ text: String, options: SynthesisOptions = SynthesisOptions()) -> AsyncThrowingStream<SynthesisEvent, Error> {
        let (stream, continuation) = AsyncThrowingStream<SynthesisEvent, Error>.makeStream()
        let cancelled = CancellationFlag()
        continuation.onTermination = { _ in cancelled.cancel() }
        ComputeThread.start(name: "ondevice.synthesize") { [self] in
            do {
                let metrics = try run(text, options: options, isCancelled: { cancelled.isCancelled }) { chunk in
                    continuation.yield(.chunk(chunk))
                }
                continuation.yield(.finished(metrics))
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        return stream
    }
}
