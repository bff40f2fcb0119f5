import Foundation
import TestSupport

/// Runs the `ondevice` executable (or `Benchmarks`) built beside the test bundle.
struct CLIRunner {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var executable: String { executable(named: "ondevice") }

    static func executable(named name: String) -> String {
        let bundleDir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var dir = bundleDir
        // The runner may be inside `X.xctest/...`; walk up to the build products folder.
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return bundleDir.appendingPathComponent(name).path
    }

    /// Runs the command on a thread of its own (`offPool`), so the wait for the child never holds
    /// one of the cooperative pool's threads.
    static func run(_ args: [String], stdin: String? = nil, environment: [String: String] = [:],
                    executable name: String = "ondevice") async throws -> Output {
        try await offPool { try runBlocking(args, stdin: stdin, environment: environment, executable: executable(named: name)) }
    }

    private static func runBlocking(_ args: [String], stdin: String?, environment: [String: String], executable: String) throws -> Output {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        try p.run()
        if let stdin { inp.fileHandleForWriting.write(Data(stdin.utf8)) }
        try inp.fileHandleForWriting.close()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Output(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }
}
