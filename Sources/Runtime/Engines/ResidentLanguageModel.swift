import ModelStore
import Models
import Platform
import StructuredOutput
import TextGeneration

/// A language model held by the residency cache: the immutable `LanguageModel` plus a small pool
/// of sessions (KV cache and scratch), so consecutive ops reuse an allocated cache and its prompt
/// prefix instead of allocating per op.
///
/// `residentBytes` is measured, not estimated:
/// - the whole GGUF mapping (`MAP_PRIVATE`, read-only): weights are paged in lazily, but one
///   forward pass touches every weight page, so a model that has run holds all of them;
/// - the heap the load allocated (tokenizer tables, metadata), measured as the growth of the
///   process's anonymous resident memory across `LanguageModel.init`;
/// - the exact bytes every live session allocated (`DecoderState.byteCount`), idle or in use.
package final class ResidentLanguageModel: ResidentModel {
    package static var kind: ModelKind { .llm }
    package let model: LanguageModel
    /// Bytes of the file mapping.
    package let mappedBytes: Int
    /// Heap the load allocated, measured.
    package let heapBytes: Int
    private let pool = Locked(SessionPool())
    /// LoRA adapters loaded for this model, by file path: loaded once, shared by every session
    /// (each session applies its own set at its own scales), freed with the model.
    private let adapters = Locked([String: LoRAAdapter]())
    /// Sessions kept allocated while no op uses them (their caches keep the last prompt). A
    /// server running several requests at once keeps as many, so a finished request's session
    /// (and its prompt cache) serves the next one instead of being freed and allocated again.
    package var maxIdleSessions: Int {
        get { idleLimit.withLock { $0 } }
        set { idleLimit.withLock { $0 = max(0, newValue) } }
    }
    private let idleLimit: Locked<Int>
    /// Idle sessions kept for chat sessions (each keeps its conversation's cache between turns);
    /// the one longest unused is freed beyond this, and all of them under memory pressure.
    package static let maxOwnedSessions = 4

    package init(model: LanguageModel, heapBytes: Int, maxIdleSessions: Int = 1) {
        self.model = model
        self.mappedBytes = model.file.region.count
        self.heapBytes = max(0, heapBytes)
        self.idleLimit = Locked(max(0, maxIdleSessions))
    }

    /// Copies of session caches an unrelated prompt was about to rewrite (0 bytes until a server
    /// gives it room): a later prompt sharing more with a copy than with its session starts there.
    package let promptCache = PromptCache()

    /// Adapters count like the model: their mappings are read in full by the first pass using them.
    package var residentBytes: Int {
        mappedBytes + heapBytes + pool.withLock { $0.stateBytes } + adapterBytes + promptCache.byteCount
    }

    /// Bytes of the adapter files mapped for this model, and what each holds beside its file.
    package var adapterBytes: Int { adapters.withLock { $0.values.reduce(0) { $0 + $1.file.region.count + $1.heapBytes } } }

    /// The adapter at `path`, loaded and checked against this model on first use.
    package func adapter(path: String) throws(EngineError) -> LoRAAdapter {
        if let cached = adapters.withLock({ $0[path] }) { return cached }
        let loaded = try model.loadAdapter(path: path)
        return adapters.withLock { cache in
            if let raced = cache[path] { return raced }  // another request loaded it meanwhile
            cache[path] = loaded
            return loaded
        }
    }

    /// Drops the adapter loaded from `path` (sessions applying it keep it alive until they change).
    package func unloadAdapter(path: String) {
        _ = adapters.withLock { $0.removeValue(forKey: path) }
    }

    /// The adapters loaded for this model, by file path.
    package var loadedAdapters: [(path: String, adapter: LoRAAdapter)] {
        adapters.withLock { $0.map { ($0.key, $0.value) } }.sorted { $0.path < $1.path }
    }

    /// Sessions allocated (in use plus idle) and how many of them are idle.
    package var sessionCounts: (live: Int, idle: Int) { pool.withLock { ($0.live, $0.idle.count) } }

    /// Tokens cached by each idle session (diagnostics and tests).
    package var idleCachedTokenCounts: [Int] { pool.withLock { $0.idle.map { $0.session.tokens.count } } }

    /// A session for one op: an idle one with this context length (its cache may share a prefix
    /// with the new prompt), or a new one. Give it back with `checkIn` when the op ends.
    ///
    /// With an `owner` (a chat session's tag), the session that owner last checked in comes back
    /// with its cache, and no other op takes it meanwhile; without one, only unowned sessions
    /// are reused: given the op's `prompt`, the one whose cache shares the longest prefix with it
    /// (as llama-server picks a slot by prompt similarity; a client that sends a conversation
    /// again with a new turn finds the session that holds it), else the last checked in. Then the
    /// prompt cache readies it for `prompt` run with `adapters` (`PromptCache.prepare`).
    package func checkOut(contextLength: Int, threads: Int, owner: UInt64? = nil, prompt: [Int32]? = nil,
                          adapters: [ScaledAdapter] = []) -> SessionSlot {
        let slot = pooledSlot(contextLength: contextLength, threads: threads, owner: owner, prompt: prompt)
        if let prompt { promptCache.prepare(slot.session, for: prompt, adapters: adapters) }
        return slot
    }

    private func pooledSlot(contextLength: Int, threads: Int, owner: UInt64?, prompt: [Int32]?) -> SessionSlot {
        let contextLength = effectiveContext(contextLength)
        let reused: SessionSlot? = pool.withLock { p in
            if let owner, let index = p.idle.lastIndex(where: { $0.owner == owner && $0.session.contextLength == contextLength }) {
                return p.idle.remove(at: index)
            }
            let candidates = p.idle.indices.filter { p.idle[$0].owner == nil && p.idle[$0].session.contextLength == contextLength }
            guard var index = candidates.last else { return nil }
            if let prompt {
                var longest = 0  // ties, and no shared prefix at all, keep the latest
                for candidate in candidates.reversed() {
                    let shared = Session.sharedPrefix(p.idle[candidate].session.tokens, prompt)
                    if shared > longest { (index, longest) = (candidate, shared) }
                }
            }
            return p.idle.remove(at: index)
        }
        if let reused {
            reused.session.threads = threads
            reused.owner = owner
            return reused
        }
        let slot = SessionSlot(Session(model: model, contextLength: contextLength, threads: threads))
        slot.owner = owner
        pool.withLock { p in
            p.live += 1
            p.stateBytes += slot.stateBytes
        }
        return slot
    }

    /// Returns a session; beyond `maxIdleSessions` unowned idle ones (and `maxOwnedSessions`
    /// owned ones) the oldest is freed.
    package func checkIn(_ slot: SessionSlot) {
        let maxIdleSessions = maxIdleSessions
        let freed: [SessionSlot] = pool.withLock { p in
            p.idle.append(slot)
            var dropped: [SessionSlot] = []
            for owned in [false, true] {
                let limit = owned ? Self.maxOwnedSessions : maxIdleSessions
                let group = p.idle.indices.filter { (p.idle[$0].owner != nil) == owned }
                for index in group.prefix(max(0, group.count - limit)) { dropped.append(p.idle[index]) }
            }
            p.idle.removeAll { slot in dropped.contains { $0 === slot } }
            p.live -= dropped.count
            p.stateBytes -= dropped.reduce(0) { $0 + $1.stateBytes }
            return dropped
        }
        _ = freed  // deallocated here, outside the lock
    }

    /// Allocates an idle session ahead of the first op, so the load pays for (and measures) the
    /// KV cache an op will need.
    package func prepareSession(contextLength: Int, threads: Int) {
        checkIn(checkOut(contextLength: contextLength, threads: threads))
    }

    /// Frees every idle session and the prompt cache (critical memory pressure); sessions in
    /// use stay.
    package func trim() {
        promptCache.removeAll()
        let freed: [SessionSlot] = pool.withLock { p in
            defer {
                p.live -= p.idle.count
                p.stateBytes -= p.idle.reduce(0) { $0 + $1.stateBytes }
                p.idle.removeAll()
            }
            return p.idle
        }
        _ = freed
    }

    private func effectiveContext(_ requested: Int) -> Int { max(1, min(requested, model.config.contextLength)) }

    /// Bytes one session of `contextLength` tokens allocates (its KV cache and scratch).
    package func sessionBytes(contextLength: Int) -> Int {
        DecoderState.byteCount(config: model.config, contextLength: effectiveContext(contextLength), maxBatch: 512)
    }

    /// Bytes every live session allocated, in use or idle.
    package var sessionStateBytes: Int { pool.withLock { $0.stateBytes } }

    /// Sessions of `contextLength` tokens that fit in `budget` bytes beside the model itself
    /// (at least one: a model that loaded can always serve one request).
    package func sessionLimit(budget: Int, contextLength: Int) -> Int {
        max(1, sessionRoom(budget: budget) / max(1, sessionBytes(contextLength: contextLength)))
    }

    /// Bytes `budget` leaves for sessions beside the model's weights, heap and adapters.
    package func sessionRoom(budget: Int) -> Int { budget - mappedBytes - heapBytes - adapterBytes }

    /// Whether sessions decoding at the same time share forward passes (continuous batching).
    package var batching: Bool {
        get { model.batcher.isEnabled }
        set { model.batcher.isEnabled = newValue }
    }

    /// What continuous batching has done on this model since it loaded.
    package var batchingFigures: BatchingFigures {
        let (c, active, waiting) = model.batcher.snapshot
        return BatchingFigures(steps: c.steps, sequences: c.sequences, rows: c.rows, batchSizes: c.batchSizes,
                               batchBounds: DecodeBatcher.batchSizeBounds, busySeconds: c.busySeconds,
                               generating: active, waiting: waiting)
    }
}

/// Continuous batching's counters for one model (`ResidentLanguageModel.batchingFigures`).
package struct BatchingFigures: Sendable {
    /// Forward passes, sequences they served (summed), and rows they evaluated.
    package var steps: Int
    package var sequences: Int
    package var rows: Int
    /// Passes by sequences served: bucket i holds up to `batchBounds[i]`, the last is open.
    package var batchSizes: [Int]
    package var batchBounds: [Int]
    /// Seconds the passes took (over the seconds served: how busy the model's compute was).
    package var busySeconds: Double
    /// Sessions inside a generation now, and passes waiting for a step.
    package var generating: Int
    package var waiting: Int
}

/// A session checked out of a `ResidentLanguageModel`.
///
/// `@unchecked Sendable`: it owns a `Session` (raw KV-cache storage) that is used by one op at a
/// time — the pool hands a slot to exactly one holder between `checkOut` and `checkIn`.
package final class SessionSlot: @unchecked Sendable {
    package let session: Session
    /// The chat session that keeps this slot between its turns (nil: any op may reuse it).
    /// Written only by the pool's holder of the slot, under the pool's lock or while checked out.
    var owner: UInt64?
    /// Bytes the session's state allocated.
    package let stateBytes: Int

    init(_ session: Session) {
        self.session = session
        self.stateBytes = DecoderState.byteCount(config: session.model.config, contextLength: session.contextLength,
                                                 maxBatch: session.state.maxBatch)
    }
}

struct SessionPool {
    var idle: [SessionSlot] = []
    var live = 0
    var stateBytes = 0
}
