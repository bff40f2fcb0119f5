import Foundation
import ModelStore

/// Where settings persist: JSON at `$XDG_CONFIG_HOME/ondevice/settings.json` (else
/// `~/.config/ondevice/settings.json`), or `$ONDEVICE_SETTINGS`, or any path a caller passes.
package struct SettingsFile: Sendable, Equatable {
    package var path: String

    package init(path: String) { self.path = path }

    package static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["ONDEVICE_SETTINGS"], !explicit.isEmpty { return explicit }
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/ondevice/settings.json" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.config/ondevice/settings.json"
    }

    /// The saved settings; defaults when the file does not exist yet.
    package func load() throws(RuntimeError) -> RuntimeSettings {
        guard let data = FileManager.default.contents(atPath: path) else { return RuntimeSettings() }
        let settings: RuntimeSettings
        do {
            settings = try JSONDecoder().decode(RuntimeSettings.self, from: data)
        } catch {
            throw .settingsInvalid(path: path, detail: "\(error)")
        }
        return try settings.validated(path: path)
    }

    /// Writes atomically (temporary file and rename), creating the directory.
    package func save(_ settings: RuntimeSettings) throws(RuntimeError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(settings) else { throw .settingsWrite(path: path, errno: EINVAL) }
        do {
            try FileSystem.makeDirectories((path as NSString).deletingLastPathComponent)
            try FileSystem.writeAtomically(data, to: path)
        } catch {
            if case let .io(_, code) = error { throw .settingsWrite(path: path, errno: code) }
            throw .settingsWrite(path: path, errno: EIO)
        }
    }
}
