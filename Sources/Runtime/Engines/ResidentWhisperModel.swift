import ModelStore
import Models
import Platform
import Speech
import Tokenizers

/// A Whisper model held by the residency cache: the immutable model and tokenizer plus a small
/// pool of transcribers (each owns a decoding state of tens of MiB), so consecutive ops reuse an
/// allocated state.
///
/// `residentBytes` is measured, not estimated: the whole `model.bin` mapping (one transcription
/// touches every weight page), the heap the load allocated (position tables, tokenizer) measured
/// as the growth of anonymous resident memory, and the exact bytes of every live state.
package final class ResidentWhisperModel: ResidentModel {
    package static var kind: ModelKind { .asr }
    /// Beams a `Transcriber` sizes its state for (`Transcriber.init` allocates 16, the most
    /// `TranscriptionOptions.beamSize` accepts).
    package static let stateBeams = 16

    package let model: WhisperModel
    package let tokenizer: WhisperTokenizer
    package let mappedBytes: Int
    package let heapBytes: Int
    package let maxIdleTranscribers: Int
    private let pool = Locked(TranscriberPool())

    package init(model: WhisperModel, tokenizer: WhisperTokenizer, heapBytes: Int, maxIdleTranscribers: Int = 1) {
        self.model = model
        self.tokenizer = tokenizer
        self.mappedBytes = model.weightBytes
        self.heapBytes = max(0, heapBytes)
        self.maxIdleTranscribers = max(0, maxIdleTranscribers)
    }

    package var residentBytes: Int { mappedBytes + heapBytes + pool.withLock { $0.stateBytes } }

    /// Transcribers allocated (in use plus idle) and how many are idle.
    package var transcriberCounts: (live: Int, idle: Int) { pool.withLock { ($0.live, $0.idle.count) } }

    /// A transcriber for one op; give it back with `checkIn`.
    package func checkOut(threads: Int) -> TranscriberSlot {
        if let reused = pool.withLock({ $0.idle.popLast() }) {
            // More threads than before grow the encoder's per-worker scores; the pool charges it.
            reused.transcriber.threads = threads
            let bytes = reused.transcriber.stateBytes
            if bytes != reused.stateBytes {
                pool.withLock { $0.stateBytes += bytes - reused.stateBytes }
                reused.stateBytes = bytes
            }
            return reused
        }
        let transcriber = Transcriber(model: model, tokenizer: tokenizer, threads: threads)
        let slot = TranscriberSlot(transcriber, stateBytes: transcriber.stateBytes)
        pool.withLock { p in
            p.live += 1
            p.stateBytes += slot.stateBytes
        }
        return slot
    }

    /// Returns a transcriber; beyond `maxIdleTranscribers` idle ones the oldest is freed.
    package func checkIn(_ slot: TranscriberSlot) {
        let freed: [TranscriberSlot] = pool.withLock { p in
            p.idle.append(slot)
            let excess = max(0, p.idle.count - maxIdleTranscribers)
            let dropped = Array(p.idle.prefix(excess))
            p.idle.removeFirst(excess)
            p.live -= dropped.count
            p.stateBytes -= dropped.reduce(0) { $0 + $1.stateBytes }
            return dropped
        }
        _ = freed  // deallocated here, outside the lock
    }

    /// Frees every idle transcriber (critical memory pressure).
    package func trim() {
        let freed: [TranscriberSlot] = pool.withLock { p in
            defer {
                p.live -= p.idle.count
                p.stateBytes -= p.idle.reduce(0) { $0 + $1.stateBytes }
                p.idle.removeAll()
            }
            return p.idle
        }
        _ = freed
    }
}

/// A transcriber checked out of a `ResidentWhisperModel`.
///
/// `@unchecked Sendable`: it owns a `Transcriber` (raw decoding buffers) used by one op at a
/// time — the pool hands a slot to exactly one holder between `checkOut` and `checkIn`.
package final class TranscriberSlot: @unchecked Sendable {
    package let transcriber: Transcriber
    /// What the pool charges for this slot's state.
    package fileprivate(set) var stateBytes: Int

    init(_ transcriber: Transcriber, stateBytes: Int) {
        self.transcriber = transcriber
        self.stateBytes = stateBytes
    }
}

struct TranscriberPool {
    var idle: [TranscriberSlot] = []
    var live = 0
    var stateBytes = 0
}
