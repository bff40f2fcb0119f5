import Engine
import Foundation
import Models
import ModelStore
import Runtime
import Synchronization
import Tokenizers

/// A Whisper model held by the residency cache, with a pool of transcribers: the weights and
/// tokenizer are shared, while each transcriber owns the decoding buffers one transcription
/// needs, so concurrent requests each check one out.
package final class ResidentTranscriber: ResidentModel {
    package let model: WhisperModel
    package let tokenizer: WhisperTokenizer
    private let weightBytes: Int
    private let idle = Mutex<[TranscriberSlot]>([])
    private let threads: Int

    init(model: WhisperModel, tokenizer: WhisperTokenizer, weightBytes: Int, threads: Int) {
        self.model = model
        self.tokenizer = tokenizer
        self.weightBytes = weightBytes
        self.threads = threads
    }

    /// Weights plus the decoding buffers of the pooled transcribers (estimated per transcriber).
    package var residentBytes: Int { weightBytes + idle.withLock { $0.count } * TranscriberLoader.scratchBytes }

    /// A transcriber for one request; give it back with `checkIn`.
    func checkOut() -> TranscriberSlot {
        if let slot = idle.withLock({ $0.popLast() }) { return slot }
        return TranscriberSlot(Transcriber(model: model, tokenizer: tokenizer, threads: threads))
    }

    /// Keeps one idle transcriber; more are freed.
    func checkIn(_ slot: TranscriberSlot) {
        idle.withLock { if $0.isEmpty { $0.append(slot) } }
    }

    package func trim() { idle.withLock { $0.removeAll() } }
}

/// A transcriber checked out of a `ResidentTranscriber`.
///
/// `@unchecked Sendable`: the transcriber's buffers are used by one request at a time — the
/// pool hands a slot to exactly one holder between `checkOut` and `checkIn`.
final class TranscriberSlot: @unchecked Sendable {
    let transcriber: Transcriber
    init(_ transcriber: Transcriber) { self.transcriber = transcriber }
}

/// Loads an installed faster-whisper model folder for the residency cache.
package struct TranscriberLoader: ResidentModelLoading {
    package let model: InstalledModel
    package let threads: Int
    /// Decoder buffers and encoder activations of one transcriber (beams × context); an
    /// estimate on the safe side for the tiny and base models.
    static let scratchBytes = 96 << 20

    package var modelId: String { model.id }
    package var kind: ModelKind { .asr }

    private var directory: String? { model.path(of: "model.bin").map { ($0 as NSString).deletingLastPathComponent } }

    package func estimate() throws(RuntimeError) -> MemoryEstimate {
        let bytes = model.filePaths.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
        return MemoryEstimate(weightBytes: bytes, scratchBytes: Self.scratchBytes)
    }

    package func load() async throws(RuntimeError) -> ResidentTranscriber {
        guard let directory else { throw .load(modelId: model.id, reason: "no model.bin: not a faster-whisper model") }
        do {
            let transcriber = try Transcriber(directory: directory, threads: threads)
            let resident = ResidentTranscriber(model: transcriber.model, tokenizer: transcriber.tokenizer,
                                               weightBytes: try estimate().weightBytes, threads: threads)
            resident.checkIn(TranscriberSlot(transcriber))
            return resident
        } catch {
            throw .load(modelId: model.id, reason: "\(error)")
        }
    }
}
