import Foundation

/// Runs a command-line tool a test uses as a reference (an encoder, a decoder, a checker). A tool
/// that is not installed throws, so the test fails and names what `scripts/setup.sh` installs.
package enum ExternalTool {
    package struct Missing: Error, CustomStringConvertible {
        package let tool: String
        package var description: String { "'\(tool)' is not installed (scripts/setup.sh installs the test tools)" }
    }

    /// Runs `tool arguments…`; returns its exit status and its output (stdout and stderr).
    @discardableResult
    package static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        guard let path = which(tool) else { throw Missing(tool: tool) }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text)
    }

    /// The tool's path on `PATH`, or nil.
    package static func which(_ tool: String) -> String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return dirs.map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
