import CLISupport
import Foundation
import OnDevice

/// `ondevice models list|pull|rm|info|import|du`: the model store from the command line. Every
/// subcommand takes `--json` for scripts; errors are one line and a non-zero exit (main.swift).
enum ModelsCommand {
    static let subcommands = "list, pull, rm, info, import, du"

    static func run(_ args: ArraySlice<String>) async throws {
        guard let sub = args.first else { throw CLIError.missingArgument("models subcommand (\(subcommands))") }
        let rest = args.dropFirst()
        switch sub {
        case "list", "ls": try await list(rest)
        case "pull": try await pull(rest)
        case "rm", "remove": try await remove(rest)
        case "info", "show": try await info(rest)
        case "import": try await importModel(rest)
        case "du": try await diskUsage(rest)
        default: throw CLIError.unknownCommand("models \(sub)")
        }
    }

    /// Every catalog model (pinned and custom) with its state on this machine.
    static func list(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: [], flags: ["json", "installed"])
        try noPositionals(a)
        let library = try await OnDeviceAI().modelLibrary()
        var models = await library.list()
        if a.has("installed") { models = models.filter { $0.state == .installed } }
        if a.has("json") {
            try printJSON(["root": library.root, "models": models.map(\.json)])
            return
        }
        var rows = [["ID", "KIND", "STATE", "SIZE", "SOURCE"]]
        for m in models {
            let size = m.state == .partial
                ? "\(byteText(m.bytesOnDisk)) of \(byteText(m.totalBytes))"
                : byteText(m.totalBytes ?? (m.state == .installed ? m.bytesOnDisk : nil))
            rows.append([m.id, m.kind.rawValue, m.state.rawValue, size, m.source.text])
        }
        printTable(rows)
    }

    /// `rm ID...`: deletes installed files and staged partial downloads (registrations stay, so a
    /// custom model can be pulled again).
    static func remove(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: [], flags: ["json"])
        guard !a.positionals.isEmpty else { throw CLIError.missingArgument("ID") }
        let library = try await OnDeviceAI().modelLibrary()
        var removed = [String]()
        for id in a.positionals {
            try await library.remove(id)
            removed.append(id)
            if !a.has("json") { print("removed \(id)") }
        }
        if a.has("json") { try printJSON(["removed": removed]) }
    }

    /// `du`: bytes per model with anything on disk, their total, and free space on the file system.
    static func diskUsage(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: [], flags: ["json"])
        try noPositionals(a)
        let report = try await OnDeviceAI().modelLibrary().storage()
        if a.has("json") {
            try printJSON([
                "root": report.root, "total_bytes": report.totalBytes, "free_bytes": report.freeBytes ?? NSNull(),
                "models": report.models.map { ["id": $0.id, "state": $0.state.rawValue, "bytes": $0.bytesOnDisk,
                                               "last_used": $0.lastUsed.map { $0.timeIntervalSince1970 } ?? NSNull()] as [String: Any] },
            ])
            return
        }
        var rows = [["ID", "STATE", "SIZE", "LAST USED"]]
        for m in report.models {
            rows.append([m.id, m.state.rawValue, byteText(m.bytesOnDisk), m.lastUsed.map(timeText) ?? "never"])
        }
        printTable(rows)
        print("total \(byteText(report.totalBytes)), free \(byteText(report.freeBytes)) (\(report.root))")
    }

    static func noPositionals(_ a: Arguments) throws {
        if let extra = a.positionals.first { throw CLIError.io("unexpected argument '\(extra)'") }
    }

    /// Left-aligned columns separated by two spaces.
    static func printTable(_ rows: [[String]]) {
        guard let columns = rows.first?.count else { return }
        let widths = (0..<columns).map { c in rows.map { $0[c].count }.max() ?? 0 }
        for row in rows {
            let cells = row.enumerated().map { c, cell in
                c == columns - 1 ? cell : cell.padding(toLength: widths[c], withPad: " ", startingAt: 0)
            }
            print(cells.joined(separator: "  "))
        }
    }

    static func timeText(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }
}
