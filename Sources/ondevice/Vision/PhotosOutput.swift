import Foundation
import OnDevice

/// Renders a cull result as text, JSON (one object: `backend`, `groups` with `files` ranked
/// best first and `pick`, `failures`) or CSV (one row per file).
enum PhotosOutput {
    static func json(_ result: PhotoCullResult) -> [String: Any] {
        [
            "backend": result.backend.description,
            "groups": result.bursts.map { burst -> [String: Any] in
                [
                    "files": burst.files.map(\.path),
                    "pick": burst.pick.path,
                    "frames": burst.frames.map { f -> [String: Any] in
                        var o: [String: Any] = ["path": f.url.path, "sharpness": f.sharpness, "clipping": f.clipping,
                                                "score": f.score, "reason": f.reason]
                        if let t = f.captureTime { o["capture_time"] = t }
                        return o
                    },
                ]
            },
            "failures": result.skipped,
        ]
    }

    static func csv(_ result: PhotoCullResult) -> String {
        var out = "group,rank,path,pick,sharpness,clipping,score,capture_time,reason\n"
        for (g, burst) in result.bursts.enumerated() {
            for (r, f) in burst.frames.enumerated() {
                let fields = ["\(g + 1)", "\(r + 1)", f.url.path, r == 0 ? "yes" : "no", String(format: "%.4f", f.sharpness),
                              String(format: "%.6f", f.clipping), String(format: "%.4f", f.score), f.captureTime ?? "", f.reason]
                out += fields.map(quote).joined(separator: ",") + "\n"
            }
        }
        return out
    }

    static func text(_ result: PhotoCullResult) -> String {
        var out = ""
        for (g, burst) in result.bursts.enumerated() {
            out += "burst \(g + 1) (\(burst.files.count) frame\(burst.files.count == 1 ? "" : "s")): pick \(burst.pick.path)\n"
            for (r, f) in burst.frames.enumerated() { out += "  \(r + 1). \(f.url.path)  \(f.reason)\n" }
        }
        out += "\(result.bursts.count) group\(result.bursts.count == 1 ? "" : "s"), \(result.skipped.count) skipped; backend: \(result.backend)\n"
        return out
    }

    /// RFC 4180 quoting when a field holds a comma, quote or newline.
    static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
