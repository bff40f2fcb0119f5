import Foundation
import TestSupport

/// The benchmark's file server in a child process (this executable, `serve-blob`), so the CPU time
/// the benchmark process spends during a pull is the client's alone, comparable with curl's.
final class BlobServer {
    static let path = "/bench/blob/resolve/main/blob.bin"
    private let process = Process()
    private let input = Pipe()
    let url: URL

    /// Starts the child and waits for it to print its port.
    init(sizeMiB: Int) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["serve-blob", "--size", String(sizeMiB)]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchmarkError("blob server exited before printing its port") }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let port = UInt16(text) else { throw BenchmarkError("blob server printed '\(text)'") }
        url = URL(string: "http://127.0.0.1:\(port)")!
    }

    /// Closing the child's stdin tells it to stop.
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// The child side: serve the blob until stdin closes.
    static func serve(arguments: ArraySlice<String>) throws {
        var size = 256
        if let i = arguments.firstIndex(of: "--size"), i + 1 < arguments.endIndex, let n = Int(arguments[i + 1]) { size = n }
        let server = try LoopbackHTTPServer()
        server.serve(path: path, body: blob(sizeMiB: size))
        FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
        _ = FileHandle.standardInput.readDataToEndOfFile()
        server.stop()
    }

    /// The served bytes: deterministic, so parent and child agree without sending them.
    static func blob(sizeMiB: Int) -> [UInt8] {
        var rng = SeededGenerator(seed: 0xd0a)
        var bytes = [UInt8](repeating: 0, count: sizeMiB << 20)
        bytes.withUnsafeMutableBytes { raw in
            for i in stride(from: 0, to: raw.count - 7, by: 8) { raw.storeBytes(of: rng.next(), toByteOffset: i, as: UInt64.self) }
        }
        return bytes
    }
}
