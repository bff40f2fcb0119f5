import Foundation
import ModelStore

/// The text-generation backend as a value: which model (and which registration of it) runs, with
/// what context and threads. It is that feature's slice of the configuration identity.
package struct TextGenerationBackend: Sendable, Equatable, Hashable {
    package var modelId: String
    /// The catalog entry's fingerprint (files, sizes, digests); a re-registered custom model with
    /// the same id but other files is a different backend. Nil when the id is not in the catalog.
    package var modelFingerprint: String?
    package var options: LoadOptions
    /// The model `translate` runs on (the same as `modelId` once the user picks a text model).
    package var translationModelId: String

    package init(modelId: String, modelFingerprint: String? = nil, options: LoadOptions, translationModelId: String? = nil) {
        self.modelId = modelId
        self.modelFingerprint = modelFingerprint
        self.options = options
        self.translationModelId = translationModelId ?? modelId
    }
}

/// The residency cache's slice of the identity.
package struct ResidencyBackend: Sendable, Equatable {
    package var policy: MemoryBudgetPolicy
    package var keepAlive: KeepAlive
}

/// Everything that decides which backends the runtime's features use. Small, Sendable, Equatable:
/// `apply` compares it slice by slice and touches only what changed.
package struct RuntimeIdentity: Sendable, Equatable {
    package var textGeneration: TextGenerationBackend
    package var residency: ResidencyBackend
    package var photoSimilarity: PhotoBackendPreference = .automatic

    /// The slices that differ from `other` (all of them when there is no other).
    package func changedSlices(from other: RuntimeIdentity?) -> [ConfigurationSlice] {
        var changed: [ConfigurationSlice] = []
        if other?.textGeneration != textGeneration { changed.append(.textGeneration) }
        if other?.residency != residency { changed.append(.residency) }
        if other?.photoSimilarity != photoSimilarity { changed.append(.photoSimilarity) }
        return changed
    }
}

/// One complete configuration snapshot, numbered. Revisions only grow; `apply` uses them to
/// reject a snapshot that arrives after a newer one.
package struct RuntimeConfiguration: Sendable, Equatable {
    package var revision: UInt64
    package var settings: RuntimeSettings
    package var textModelFingerprint: String?

    package init(revision: UInt64, settings: RuntimeSettings, textModelFingerprint: String?) {
        self.revision = revision
        self.settings = settings
        self.textModelFingerprint = textModelFingerprint
    }

    package var identity: RuntimeIdentity {
        let threads = settings.threads ?? ProcessInfo.processInfo.activeProcessorCount
        return RuntimeIdentity(
            textGeneration: TextGenerationBackend(modelId: settings.textModelId(for: .chat), modelFingerprint: textModelFingerprint,
                                                  options: LoadOptions(contextLength: settings.contextLength, threads: threads),
                                                  translationModelId: settings.textModelId(for: .translate)),
            residency: ResidencyBackend(policy: MemoryBudgetPolicy(fraction: settings.memoryFraction,
                                                                   overrideBytes: settings.memoryBudgetBytes),
                                        keepAlive: KeepAlive(seconds: settings.keepAliveSeconds)),
            photoSimilarity: settings.photoBackend)
    }
}

/// What `apply(configuration:)` did.
package enum ApplyOutcome: Sendable, Equatable {
    /// Not newer than the last accepted revision: ignored.
    case stale(revision: UInt64, lastAccepted: UInt64)
    /// Newer, but the identity is the same: revision recorded, nothing touched.
    case unchanged(revision: UInt64)
    /// These slices' backends were swapped.
    case applied(revision: UInt64, swapped: [ConfigurationSlice])
}

/// Receives configuration snapshots (the runtime). A class-bound protocol so the publisher can
/// hold it weakly: the runtime owns the settings model, not the other way round.
package protocol ConfigurationApplying: AnyObject, Sendable {
    func apply(_ configuration: RuntimeConfiguration) async -> ApplyOutcome
}

/// Looks up what the settings name, for the identity (production asks the model store).
package protocol BackendResolving: Sendable {
    /// The catalog fingerprint of `modelId`, nil when the catalog does not know it.
    func fingerprint(modelId: String) async -> String?
}

/// Resolves against the store's catalog (pinned plus registered models).
package struct StoreBackendResolver: BackendResolving {
    package let store: ModelStore
    package init(store: ModelStore) { self.store = store }

    package func fingerprint(modelId: String) async -> String? {
        try? await store.catalog.entry(id: modelId).fingerprint
    }
}
