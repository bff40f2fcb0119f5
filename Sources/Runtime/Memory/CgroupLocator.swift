import Foundation

/// Finds this process's memory cgroup directories, leaf first, so the probes can read limits and
/// pressure at every level (a parent's limit binds a child that has none).
///
/// Reads two files under `root` (the file-system root; tests point it at a fake tree):
/// - `/proc/self/cgroup`: lines `hierarchy-id:controllers:path`; cgroup v2 is `0::/path`, a v1
///   memory hierarchy lists `memory` among its comma-separated controllers.
/// - `/proc/self/mountinfo`: lines `id parent major:minor root mountpoint options [optional...] -
///   fstype source superoptions`; v2 mounts have fstype `cgroup2`, v1 memory mounts fstype `cgroup`
///   with `memory` in the super options. The mount's `root` is stripped from the process's path
///   (bind-mounted container cgroups).
package struct CgroupLocator: Sendable, Equatable {
    package enum Version: Sendable, Equatable { case v1, v2 }

    /// A cgroup directory and which interface its files speak.
    package struct Directory: Sendable, Equatable {
        package var path: String
        package var version: Version
    }

    package var root: String

    package init(root: String = "/") { self.root = root }

    /// Directories from the process's own cgroup up to the hierarchy's mount point, v2 preferred
    /// when both a v2 and a v1 memory hierarchy are mounted and the v2 one has the memory files.
    package func memoryDirectories() -> [Directory] {
        guard let cgroups = read("/proc/self/cgroup"), let mounts = read("/proc/self/mountinfo") else { return [] }
        let memberships = Self.parseMemberships(cgroups)
        let mountList = Self.parseMounts(mounts)
        var candidates: [[Directory]] = []
        if let path = memberships.v2, let mount = mountList.first(where: { $0.fstype == "cgroup2" }) {
            let dirs = chain(mount: mount, path: path, version: .v2)
            if dirs.contains(where: { exists($0.path + "/memory.current") }) { candidates.append(dirs) }
        }
        if let path = memberships.v1Memory,
           let mount = mountList.first(where: { $0.fstype == "cgroup" && $0.superOptions.contains("memory") }) {
            candidates.append(chain(mount: mount, path: path, version: .v1))
        }
        return candidates.first ?? []
    }

    private func chain(mount: Mount, path: String, version: Version) -> [Directory] {
        var relative = path
        if mount.root != "/", relative.hasPrefix(mount.root) { relative = String(relative.dropFirst(mount.root.count)) }
        var components = relative.split(separator: "/").map(String.init)
        var result: [Directory] = []
        while true {
            let dir = ([root == "/" ? "" : root, mount.point] + components).joined(separator: "/")
                .replacingOccurrences(of: "//", with: "/")
            result.append(Directory(path: dir, version: version))
            if components.isEmpty { break }
            components.removeLast()
        }
        return result
    }

    /// Path of a file under `root`.
    package func path(_ absolute: String) -> String { root == "/" ? absolute : root + absolute }

    func read(_ absolute: String) -> String? { Self.readSmallFile(path(absolute)) }

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// Reads a small text file (procfs and cgroupfs files report a size of 0, so read to EOF).
    package static func readSmallFile(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    // MARK: Parsing

    struct Memberships: Equatable {
        var v2: String?
        var v1Memory: String?
    }

    static func parseMemberships(_ text: String) -> Memberships {
        var result = Memberships()
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[0] == "0" && fields[1].isEmpty { result.v2 = String(fields[2]) }
            if fields[1].split(separator: ",").contains("memory") { result.v1Memory = String(fields[2]) }
        }
        return result
    }

    struct Mount: Equatable {
        var root: String
        var point: String
        var fstype: String
        var superOptions: [String]
    }

    static func parseMounts(_ text: String) -> [Mount] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ").map(String.init)
            guard let dash = fields.firstIndex(of: "-"), dash >= 6, fields.count >= dash + 4 else { return nil }
            return Mount(root: unescape(fields[3]), point: unescape(fields[4]), fstype: fields[dash + 1],
                         superOptions: fields[dash + 3].split(separator: ",").map(String.init))
        }
    }

    /// mountinfo escapes space, tab, newline and backslash as `\ooo` octal.
    static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var bytes: [UInt8] = []
        let utf8 = Array(field.utf8)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "\\"), i + 3 < utf8.count,
               let value = UInt8(String(decoding: utf8[(i + 1)...(i + 3)], as: UTF8.self), radix: 8) {
                bytes.append(value)
                i += 4
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
