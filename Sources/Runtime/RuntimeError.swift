import Foundation
import ModelStore
import StructuredOutput

/// Everything that can go wrong in the runtime, each case saying what and where.
package enum RuntimeError: Error, Sendable, Equatable {
    /// The model needs more memory than the whole budget allows, so it is refused before loading.
    case exceedsBudget(modelId: String, needed: Int, budget: Int)
    /// Leased models hold the memory this load needs, and the caller asked not to wait.
    case budgetBusy(modelId: String, needed: Int, evictable: Int, budget: Int)
    /// One model id was leased through loaders of two different model types.
    case modelTypeMismatch(modelId: String, expected: String, found: String)
    /// The model loaded but could not be built (bad file, unsupported architecture, ...).
    case load(modelId: String, reason: String)
    /// The model store failed (unknown id, download error, disk full, ...).
    case store(StoreError)
    /// The engine failed while running an op.
    case engine(EngineError)
    /// The file is of a kind this build runs, but it asks for something the engine does not
    /// implement (an architecture, a RoPE scaling, a tensor it would have to ignore).
    case unsupportedModel(modelId: String, reason: String)
    /// No engine for this kind of model is registered in this build.
    case noEngine(modelId: String, kind: ModelKind)
    /// The settings file exists but cannot be read or decoded.
    case settingsInvalid(path: String, detail: String)
    /// The settings file could not be written.
    case settingsWrite(path: String, errno: Int32)
    /// The work was superseded by a newer configuration before it could publish.
    case superseded(revision: UInt64)
    /// The caller cancelled while waiting for memory or a load.
    case cancelled
    /// The id names a model, not a LoRA adapter.
    case notAnAdapter(id: String)
    /// The adapter's catalog entry names no base model to check it against.
    case adapterWithoutBase(id: String)
    /// The adapter cannot be applied to the model it was registered for (architecture, names, shapes).
    case adapterDoesNotFit(id: String, base: String, reason: String)
}

extension RuntimeError: CustomStringConvertible {
    /// One line for logs and the CLI.
    package var description: String {
        switch self {
        case let .exceedsBudget(id, needed, budget):
            "model \(id) needs \(ByteCount(needed)) but the memory budget is \(ByteCount(budget))"
        case let .budgetBusy(id, needed, evictable, budget):
            "model \(id) needs \(ByteCount(needed)); models in use leave \(ByteCount(evictable)) of the \(ByteCount(budget)) budget"
        case let .modelTypeMismatch(id, expected, found): "model \(id) is loaded as \(found), not \(expected)"
        case let .load(id, reason): "cannot load \(id): \(reason)"
        case .store(let error): "model store: \(error)"
        case .engine(let error): error.description
        case let .unsupportedModel(id, reason): "model \(id) is not supported by this build: \(reason)"
        case let .noEngine(id, kind): "no engine for \(kind.rawValue) models (\(id)) in this build"
        case let .settingsInvalid(path, detail): "settings \(path): \(detail)"
        case let .settingsWrite(path, errno): "cannot write settings \(path) (errno \(errno))"
        case .superseded(let revision): "superseded by configuration revision \(revision)"
        case .cancelled: "cancelled"
        case .notAnAdapter(let id): "'\(id)' is not a LoRA adapter"
        case .adapterWithoutBase(let id): "LoRA adapter '\(id)' names no base model (register or import it with one)"
        case let .adapterDoesNotFit(id, base, reason): "LoRA adapter '\(id)' does not fit '\(base)': \(reason)"
        }
    }
}

/// A byte count printed in binary units for messages ("243.1 MiB").
package struct ByteCount: CustomStringConvertible, Sendable {
    package var bytes: Int64
    package init(_ bytes: Int) { self.bytes = Int64(bytes) }
    package init(_ bytes: Int64) { self.bytes = bytes }

    package var description: String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes), unit = 0
        while abs(value) >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}
