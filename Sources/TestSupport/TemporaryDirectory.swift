import Foundation

/// A fresh directory under the system temporary directory, removed on `cleanup()` or deinit.
///
/// `Sendable`: holds only its immutable path; removing twice is harmless.
package final class TemporaryDirectory: Sendable {
    package let path: String

    package init(prefix: String = "ondevice-test") throws {
        let base = FileManager.default.temporaryDirectory
        let url = base.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    /// Path of `name` inside the directory (not created).
    package func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    /// Removes the directory and everything in it.
    package func cleanup() {
        try? FileManager.default.removeItem(atPath: path)
    }

    deinit { cleanup() }
}
