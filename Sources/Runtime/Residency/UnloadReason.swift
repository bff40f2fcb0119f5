/// Why a model left memory. The first two are evictions (the runtime needed the memory); the rest
/// are the model's keep-alive or the caller's choice.
package enum UnloadReason: Sendable, Equatable, Codable, CustomStringConvertible {
    /// Evicted, least recently used first, to make room for loading `forModel`.
    case budget(forModel: String)
    /// Evicted by kernel memory pressure.
    case pressure(MemoryPressure)
    /// Evicted because the budget was lowered.
    case budgetReduced
    /// Idle for longer than its keep-alive.
    case keepAliveExpired
    /// Keep-alive 0: unloaded as soon as its op ended.
    case afterUse
    /// Asked for by the caller (or a configuration that no longer uses the model).
    case requested

    /// Whether the runtime took the model away to get memory back.
    package var isEviction: Bool {
        switch self {
        case .budget, .pressure, .budgetReduced: true
        case .keepAliveExpired, .afterUse, .requested: false
        }
    }

    package var description: String {
        switch self {
        case .budget(let id): "budget (to load \(id))"
        case .pressure(let level): "\(level) memory pressure"
        case .budgetReduced: "budget reduced"
        case .keepAliveExpired: "keep-alive expired"
        case .afterUse: "keep-alive 0"
        case .requested: "requested"
        }
    }
}
