/// The independently swappable parts of the runtime's configuration. `apply` compares each
/// slice of identity on its own and swaps only the backends whose slice changed.
package enum ConfigurationSlice: String, Sendable, Equatable, Codable, CaseIterable {
    /// The text-generation backend: model, context length, threads.
    case textGeneration
    /// The residency cache: budget policy and default keep-alive.
    case residency
    /// The photo-similarity backend: perceptual or neural (`RuntimeSettings.photoBackend`).
    case photoSimilarity
}

/// A stable feature that lives outside this module and swaps its backend when its slice of the
/// configuration changes (the runtime calls it from `apply`, and once on `attach`).
package protocol ConfigurationSliceConsumer: AnyObject, Sendable {
    var slice: ConfigurationSlice { get }
    func configure(_ identity: RuntimeIdentity, revision: UInt64) async
}
