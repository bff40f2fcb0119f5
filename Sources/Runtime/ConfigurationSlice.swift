/// The independently swappable parts of the runtime's configuration. `apply` compares each
/// slice of identity on its own and swaps only the backends whose slice changed.
package enum ConfigurationSlice: String, Sendable, Equatable, Codable, CaseIterable {
    /// The text-generation backend: model, context length, threads.
    case textGeneration
    /// The residency cache: budget policy and default keep-alive.
    case residency
}
