import Foundation
import Photos

/// Renders a cull report as text, JSON (one object: `backend`, `groups` with `files` ranked
/// best first and `pick`, `failures`) or CSV (one row per file).
enum PhotosOutput {
    static func json(_ report: CullReport) -> [String: Any] {
        [
            "backend": report.capability.description,
            "groups": report.groups.map { group -> [String: Any] in
                [
                    "files": group.files.map(\.path),
                    "pick": group.pick,
                    "frames": group.files.map { f -> [String: Any] in
                        var o: [String: Any] = ["path": f.path, "sharpness": f.quality.sharpness, "clipping": f.quality.clipping,
                                                "score": f.quality.score, "reason": f.reason]
                        if let t = f.captureTime { o["capture_time"] = t }
                        return o
                    },
                ]
            },
            "failures": report.failures.map(\.description),
        ]
    }

    static func csv(_ report: CullReport) -> String {
        var out = "group,rank,path,pick,sharpness,clipping,score,capture_time,reason\n"
        for (g, group) in report.groups.enumerated() {
            for (r, f) in group.files.enumerated() {
                let fields = ["\(g + 1)", "\(r + 1)", f.path, r == 0 ? "yes" : "no", String(format: "%.4f", f.quality.sharpness),
                              String(format: "%.6f", f.quality.clipping), String(format: "%.4f", f.quality.score), f.captureTime ?? "", f.reason]
                out += fields.map(quote).joined(separator: ",") + "\n"
            }
        }
        return out
    }

    static func text(_ report: CullReport) -> String {
        var out = ""
        for (g, group) in report.groups.enumerated() {
            out += "burst \(g + 1) (\(group.files.count) frame\(group.files.count == 1 ? "" : "s")): pick \(group.pick)\n"
            for (r, f) in group.files.enumerated() { out += "  \(r + 1). \(f.path)  \(f.reason)\n" }
        }
        out += "\(report.groups.count) group\(report.groups.count == 1 ? "" : "s"), \(report.failures.count) skipped; backend: \(report.capability)\n"
        return out
    }

    /// RFC 4180 quoting when a field holds a comma, quote or newline.
    static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
