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
    /// The underlying file could not be read or parsed.
    case format(FormatError)
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
        case .format(let error): error.description
        }
    }
}
