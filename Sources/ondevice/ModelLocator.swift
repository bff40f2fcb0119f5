import Foundation
import ModelStore

/// Turns a `--model` argument into a file path: an existing file, or a catalog id installed
/// in the model store.
enum ModelLocator {
    static func path(for argument: String) throws -> String {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: argument, isDirectory: &isDir), !isDir.boolValue {
            return argument
        }
        throw CLIError.io("no model '\(argument)': not a file, and catalog ids need the model store")
    }
}
