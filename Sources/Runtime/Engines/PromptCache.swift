import Models
import Platform
import TextGeneration

/// Copies of session caches kept beside a model's session pool, up to a byte capacity (as
/// llama-server keeps slot prompts in host memory, `--cache-ram`).
///
/// A session is about to be rewritten when an op's prompt keeps less than half of what its
/// cache holds; its cache is copied here first. A later prompt that shares more with a copy
/// than with the session it got starts from the copy: its positions are copied in instead of
/// evaluated. So a server whose clients outnumber its sessions, or a new session in a burst of
/// requests, finds the prompts (system prompts, templates, conversations) evaluated before.
/// The copies made most recently, or used most recently, stay; the rest are dropped first.
package final class PromptCache: Sendable {
    private struct Entry {
        let tokens: [Int32]
        let adapters: [ScaledAdapter]
        let kv: KVPrefix
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Entry] = []
        var capacity: Int
        var clock: UInt64 = 0
        var figures = PromptCacheFigures()

        var bytes: Int { entries.reduce(0) { $0 + $1.kv.byteCount } }

        /// Drops the least recently used entries until `room` more bytes fit.
        mutating func evict(toFit room: Int) {
            var total = bytes
            while total + room > capacity, let oldest = entries.indices.min(by: { entries[$0].lastUse < entries[$1].lastUse }) {
                total -= entries[oldest].kv.byteCount
                entries.remove(at: oldest)
            }
        }
    }

    private let state: Locked<State>

    package init(capacity: Int = 0) { state = Locked(State(capacity: max(0, capacity))) }

    /// Bytes the copies may take; 0 keeps none. Lowering it drops copies until they fit.
    package var capacity: Int {
        get { state.withLock { $0.capacity } }
        set { state.withLock { s in
            s.capacity = max(0, newValue)
            s.evict(toFit: 0)
        } }
    }

    /// Bytes the copies take now.
    package var byteCount: Int { state.withLock { $0.bytes } }

    /// What the cache holds and has done.
    package var figures: PromptCacheFigures {
        state.withLock { s in
            var f = s.figures
            f.entries = s.entries.count
            f.bytes = s.bytes
            f.capacity = s.capacity
            return f
        }
    }

    /// Drops every copy (memory pressure).
    package func removeAll() { state.withLock { $0.entries.removeAll() } }

    /// Readies `session`, just checked out for an op whose prompt is `prompt` with `adapters`:
    /// keeps a copy of its cache when the prompt would keep less than half of it, and, when a
    /// copy shares more of the prompt than the session does, copies that prefix in (all but the
    /// prompt's last token, which the prefill evaluates anyway for its logits). Returns how many
    /// leading prompt tokens the session's cache holds afterwards.
    @discardableResult
    package func prepare(_ session: Session, for prompt: [Int32], adapters: [ScaledAdapter]) -> Int {
        let held = session.adapters == adapters ? Session.sharedPrefix(session.tokens, prompt) : 0
        let wanted = min(prompt.count - 1, session.contextLength)
        // The copy to start from is chosen (and marked used) before the session's own cache is
        // copied in, so making room for that never drops it.
        let (best, count) = state.withLock { s -> (Entry?, Int) in
            var best: Int?
            var longest = held
            for (i, entry) in s.entries.enumerated() where entry.adapters == adapters {
                let n = min(Session.sharedPrefix(entry.tokens, prompt), wanted)
                if n > longest { (best, longest) = (i, n) }
            }
            guard let best else { return (nil, held) }
            s.clock += 1
            s.entries[best].lastUse = s.clock
            s.figures.hits += 1
            s.figures.restoredTokens += longest - held
            return (s.entries[best], longest)
        }
        if session.tokens.count - held > held && capacity > 0 { save(session) }
        guard let best else { return held }
        // The copy is immutable (and kept alive by `best` even if dropped meanwhile), and this
        // session is the caller's alone: no lock needed.
        session.restore(prompt[..<count], from: best.kv, adapters: best.adapters)
        return count
    }

    /// Copies `session`'s cache in, unless a copy already holds all of it; copies that hold
    /// only a prefix of it go.
    private func save(_ session: Session) {
        let tokens = session.tokens
        let adapters = session.adapters
        let bytes = KVPrefix.byteCount(config: session.model.config, count: tokens.count)
        let needed = state.withLock { s -> Bool in
            guard bytes <= s.capacity else { return false }
            s.clock += 1
            if let covering = s.entries.firstIndex(where: { $0.adapters == adapters && $0.tokens.starts(with: tokens) }) {
                s.entries[covering].lastUse = s.clock
                return false
            }
            return true
        }
        guard needed else { return }
        let kv = session.copyCache()
        state.withLock { s in
            s.entries.removeAll { $0.adapters == adapters && tokens.starts(with: $0.tokens) }
            s.evict(toFit: kv.byteCount)
            guard kv.byteCount + s.bytes <= s.capacity else { return }
            s.clock += 1
            s.entries.append(Entry(tokens: tokens, adapters: adapters, kv: kv, lastUse: s.clock))
            s.figures.saves += 1
        }
    }
}

/// What a model's prompt cache holds and has done (`ResidentLanguageModel.promptCache`).
package struct PromptCacheFigures: Sendable, Equatable {
    /// Copies held, the bytes they take, and the bytes they may take.
    package var entries = 0
    package var bytes = 0
    package var capacity = 0
    /// Sessions copied in, prompts that started from a copy, and the prompt tokens those copies
    /// spared evaluating.
    package var saves = 0
    package var hits = 0
    package var restoredTokens = 0
}
