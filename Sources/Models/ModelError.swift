import Formats
import Tensor

/// Errors raised while loading or configuring a model.
package enum ModelError: Error, Sendable, Equatable {
    /// `general.architecture` names an architecture the engine does not implement.
    case unsupportedArchitecture(String)
    /// The file has no `general.architecture` key.
    case missingArchitecture
    /// A weight tensor has a type the kernels cannot compute with.
    case unsupportedTensorType(tensor: String, type: String)
    /// A weight tensor's shape is not what the hyperparameters imply.
    case shapeMismatch(tensor: String, expected: [Int], found: [Int])
    /// A hyperparameter is missing or out of range.
    case invalidHyperparameter(key: String, value: String)
    /// A hyperparameter that changes the model's math in a way this engine does not implement
    /// (running without it would give wrong answers, not an error).
    case unsupportedHyperparameter(key: String, value: String)
    /// A tensor the architecture does not use. Weights that change the math must never be
    /// ignored silently, so a file carrying one is refused.
    case unexpectedTensor(name: String, architecture: String)
    /// The underlying file could not be read or parsed.
    case format(FormatError)
    /// A file loaded as an adapter whose `general.type` is not "adapter".
    case notAnAdapter(generalType: String)
    /// An adapter of a kind other than LoRA (`adapter.type`).
    case unsupportedAdapter(type: String)
    /// An adapter made for another architecture than the model it is applied to.
    case adapterArchitectureMismatch(adapter: String, model: String)
    /// An adapter tensor that targets no weight this decoder can adapt.
    case adapterTargetUnsupported(tensor: String)
    /// A `lora_a` without its `lora_b`, or the reverse.
    case adapterPairIncomplete(tensor: String)
    /// An adapter with no tensor pairs.
    case adapterEmpty
    /// Speech synthesis was asked to speak no phoneme ids.
    case emptyPhonemeIDs
    /// A phoneme id outside the voice's embedding table.
    case phonemeIDOutOfRange(id: Int, position: Int, vocabularySize: Int)
    /// A graph operator this engine cannot run as the file gives it (`index` in execution order).
    case unsupportedOperator(index: Int, op: String, reason: String)
    /// A graph node whose operator the ONNX executor does not implement.
    case unsupportedNode(node: String, op: String)
    /// A graph node attribute (or constant input) with a value the executor does not implement.
    case unsupportedAttribute(node: String, attribute: String, value: String)
    /// A graph node whose inputs cannot be combined (missing value, wrong rank or shape, wrong type).
    case invalidGraphValue(node: String, detail: String)
}

extension ModelError: CustomStringConvertible {
    /// One line for logs and the CLI.
    package var description: String {
        switch self {
        case .unsupportedArchitecture(let name):
            "unsupported architecture '\(name)' (supported: \(Architecture.allCases.map(\.rawValue).joined(separator: ", ")))"
        case .missingArchitecture: "the file has no general.architecture"
        case let .unsupportedTensorType(tensor, type): "tensor '\(tensor)': type \(type) is not supported for this weight"
        case let .shapeMismatch(tensor, expected, found): "tensor '\(tensor)': shape \(found), expected \(expected)"
        case let .invalidHyperparameter(key, value): "hyperparameter '\(key)': invalid value \(value)"
        case let .unsupportedHyperparameter(key, value): "hyperparameter '\(key)' = \(value) is not supported by this engine"
        case let .unexpectedTensor(name, arch): "tensor '\(name)' is not used by the \(arch) decoder this engine implements; refusing to run without it"
        case .format(let error): error.description
        case .notAnAdapter(let type): "not a LoRA adapter (general.type is '\(type)', expected 'adapter')"
        case .unsupportedAdapter(let type): "adapter type '\(type)' is not supported (only 'lora')"
        case let .adapterArchitectureMismatch(adapter, model): "the adapter is for '\(adapter)', the model is '\(model)'"
        case .adapterTargetUnsupported(let tensor): "adapter tensor '\(tensor)' targets no adaptable weight of the model"
        case .adapterPairIncomplete(let tensor): "adapter tensor '\(tensor)' has no matching lora_a/lora_b half"
        case .adapterEmpty: "the adapter has no lora_a/lora_b tensor pairs"
        case .emptyPhonemeIDs: "no phoneme ids to synthesize"
        case let .phonemeIDOutOfRange(id, position, size): "phoneme id \(id) at position \(position) is outside the voice's \(size) ids"
        case let .unsupportedOperator(index, op, reason): "operator \(index) (\(op)): \(reason)"
        case let .unsupportedNode(node, op): "graph node '\(node)': operator \(op) is not supported"
        case let .unsupportedAttribute(node, attribute, value): "graph node '\(node)': \(attribute) = \(value) is not supported"
        case let .invalidGraphValue(node, detail): "graph node '\(node)': \(detail)"
        }
    }
}
