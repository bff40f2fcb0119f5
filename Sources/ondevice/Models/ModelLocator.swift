import CLISupport
import Foundation
import OnDevice

/// Turns a `--model` argument into a file path: an existing file, or a catalog id from the model
/// store — installed, or downloaded on first use (the same download `ondevice models pull` does,
/// so a model fetched ahead of time and one fetched now are indistinguishable afterwards).
enum ModelLocator {
    static func path(for argument: String, suffix: String = ".gguf") async throws -> String {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: argument, isDirectory: &isDir), !isDir.boolValue {
            return argument
        }
        let installed = try await installedModel(argument)
        guard let path = installed.firstPath(withSuffix: suffix) ?? installed.files.first?.path else {
            throw CLIError.io("model '\(argument)' has no \(suffix) file")
        }
        return path
    }

    /// What the public API takes for a `--model` argument: a GGUF path as given, or a store id,
    /// downloaded first with a progress bar when it is not installed yet.
    static func reference(for argument: String) async throws -> String {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: argument, isDirectory: &isDir), !isDir.boolValue { return argument }
        _ = try await installedModel(argument)
        return argument
    }

    /// The installed model for a catalog id, downloading it first when it is not on disk yet.
    static func installedModel(_ id: String) async throws -> ModelInfo {
        let library = try await OnDeviceAI().modelLibrary()
        let model: ModelInfo
        do {
            model = try await library.info(id)
        } catch let error as OnDeviceError where error.code == .modelUnavailable {
            throw CLIError.io("no model '\(id)': not a file, and not a catalog id (see 'ondevice models list')")
        } catch let error as OnDeviceError where error.code == .invalidArgument {
            throw CLIError.io("no model '\(id)': not a file, and not a valid model id")
        }
        if model.state == .installed { return model }
        let bar = ProgressBar(label: id)
        let installed = try await library.download(id) { bar.update($0) }
        bar.finish()
        return installed
    }
}
