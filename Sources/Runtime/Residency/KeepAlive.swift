import EngineSupport
/// How long an idle model stays resident after its last op, as Ollama's `keep_alive` reads:
/// a positive time keeps it that long, zero unloads it as soon as the op ends, a negative value
/// keeps it until memory is needed.
package enum KeepAlive: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    case duration(Duration)
    case unloadImmediately
    case forever

    /// Ollama's default.
    package static let standard = KeepAlive.duration(.seconds(300))

    /// From seconds with Ollama's signs: > 0 a time, 0 at once, < 0 forever.
    package init(seconds: Double) {
        if seconds.isNaN || seconds == 0 {
            self = .unloadImmediately
        } else if seconds < 0 {
            self = .forever
        } else if seconds >= Double(Int64.max / 1_000_000) {
            self = .forever
        } else {
            self = .duration(.milliseconds(Int64(seconds * 1000)))
        }
    }

    /// Seconds with Ollama's signs (the persisted form).
    package var seconds: Double {
        switch self {
        case .duration(let d): d.seconds
        case .unloadImmediately: 0
        case .forever: -1
        }
    }

    package init(from decoder: Decoder) throws {
        self.init(seconds: try decoder.singleValueContainer().decode(Double.self))
    }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(seconds)
    }

    package var description: String {
        switch self {
        case .duration: "\(seconds) s"
        case .unloadImmediately: "0 (unload after use)"
        case .forever: "forever"
        }
    }
}
