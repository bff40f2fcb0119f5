import CLISupport
import Foundation
import OnDevice

/// `ondevice ocr IMG [--json] [--threads N]`: the text in an image, one line per piece read, in
/// reading order, with its confidence and its box (corners tl, tr, br, bl in image pixels).
enum OCRCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["threads"], flags: ["json"])
        guard let file = a.positionals.first, a.positionals.count == 1 else { throw CLIError.missingArgument("IMG") }
        var configuration = OnDeviceAI.Configuration()
        configuration.threads = try a.int("threads")
        let lines = try await OnDeviceAI(configuration: configuration).readText(in: URL(fileURLWithPath: file))
        if a.has("json") {
            try printJSON(["file": file, "lines": lines.map { line in
                ["text": line.text, "raw_text": line.rawText, "score": line.confidence,
                 "box": line.corners.map { [Double($0.x), Double($0.y)] }] as [String: Any]
            }])
            return
        }
        for line in lines {
            let box = line.corners.map { String(format: "%.0f,%.0f", Double($0.x), Double($0.y)) }.joined(separator: " ")
            writeOut(String(format: "%.3f  ", line.confidence) + "[\(box)]  " + line.text + "\n")
        }
    }
}
