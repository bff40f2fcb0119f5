import Engine
import Foundation
import ModelStore

/// Finds, loads and shares language models, and lends out sessions (KV caches) so consecutive
/// ops reuse one another's allocations and cached prefixes.
///
/// The store's resolution is the only way in: an installed catalog model is used as is, a
/// missing one is pulled first (the runtime's first-use download), and a path loads directly.
actor TextModelProvider {
    private let store: ModelStore?
    private let threads: Int?
    private let contextLength: Int?
    private var models: [String: LanguageModel] = [:]
    private var idle: [String: [Session]] = [:]

    init(store: ModelStore?, threads: Int?, contextLength: Int?) {
        self.store = store
        self.threads = threads
        self.contextLength = contextLength
    }

    /// The loaded model for a catalog id or a GGUF path.
    func model(_ reference: String) async throws(OnDeviceError) -> LanguageModel {
        if let m = models[reference] { return m }
        let path = try await self.path(for: reference)
        let model: LanguageModel
        do { model = try LanguageModel(path: path) } catch {
            throw .modelLoadFailed(model: reference, reason: error.description)
        }
        models[reference] = model
        return model
    }

    /// A session over `reference`'s model, reused when one is idle. Give it back with `checkIn`.
    func checkOut(_ reference: String) async throws(OnDeviceError) -> LentSession {
        let m = try await model(reference)
        if let s = idle[reference]?.popLast() { return LentSession(s) }
        return LentSession(Session(model: m, contextLength: contextLength, threads: threads))
    }

    /// Returns a session for reuse by later ops.
    func checkIn(_ lent: LentSession, reference: String) {
        idle[reference, default: []].append(lent.session)
    }

    private func path(for reference: String) async throws(OnDeviceError) -> String {
        if FileManager.default.fileExists(atPath: reference) { return reference }
        guard let store else { throw .modelUnavailable(model: reference, reason: "no such file, and no model store") }
        do {
            var installed = try await store.resolve(reference)
            if installed == nil { installed = try await store.pull(reference) }
            guard let installed else { throw OnDeviceError.modelUnavailable(model: reference, reason: "not installed") }
            guard let path = installed.firstPath(withSuffix: ".gguf") else {
                throw OnDeviceError.modelUnavailable(model: reference, reason: "it has no GGUF file")
            }
            return path
        } catch let e as OnDeviceError {
            throw e
        } catch {
            throw .modelUnavailable(model: reference, reason: "\(error)")
        }
    }
}

/// Carries a session into an op's producer task.
///
/// `@unchecked Sendable`: exactly one task uses the session between check-out and check-in.
final class LentSession: @unchecked Sendable {
    let session: Session
    init(_ session: Session) { self.session = session }
}

extension TextModelProvider {
    /// Sessions waiting for reuse (tests check that cancelled ops give theirs back).
    func idleSessionCount() -> Int { idle.values.reduce(0) { $0 + $1.count } }

    /// Tokens held by the idle sessions' caches.
    func idleCachedTokens() -> [Int] { idle.values.flatMap { $0.map(\.tokens.count) } }
}

extension OnDevice {
    /// Sessions waiting in the pool, for tests and diagnostics.
    package func idleSessionCount() async -> Int { await provider.idleSessionCount() }
    /// Tokens cached by each idle session, for tests and diagnostics.
    package func idleCachedTokens() async -> [Int] { await provider.idleCachedTokens() }
}
