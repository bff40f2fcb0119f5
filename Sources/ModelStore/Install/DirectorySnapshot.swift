import Foundation
import Platform
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Metadata of every entry under a model directory, sorted by path: the key that decides whether
/// a previous validation can be reused (no hashing) or the files must be checked again.
///
/// Besides the path, kind, size, mtime and link target, it records the inode and ctime: a file
/// replaced by rename gets a new inode, and ctime cannot be set back by `touch`, so an edit that
/// restores the old mtime is still seen.
package struct DirectorySnapshot: Sendable, Equatable, Codable {
    package struct Entry: Sendable, Equatable, Codable {
        package enum Kind: String, Sendable, Codable { case file, directory, symlink, other }
        package var path: String
        package var kind: Kind
        package var size: Int64
        package var mtimeNs: Int64
        package var ctimeNs: Int64
        package var inode: UInt64
        package var linkTarget: String?
    }

    package var entries: [Entry]

    /// Walks `root` without following links. A missing root gives an empty snapshot.
    package static func take(of root: String) -> DirectorySnapshot {
        var entries = [Entry]()
        walk(root: root, relative: "", into: &entries)
        entries.sort { $0.path < $1.path }
        return DirectorySnapshot(entries: entries)
    }

    private static func walk(root: String, relative: String, into entries: inout [Entry]) {
        let directory = relative.isEmpty ? root : root + "/" + relative
        for name in FileSystem.children(directory) {
            let path = relative.isEmpty ? name : relative + "/" + name
            var st = stat()
            guard lstat(root + "/" + path, &st) == 0 else { continue }
            let kind: Entry.Kind
            var target: String?
            switch st.st_mode & S_IFMT {
            case S_IFREG: kind = .file
            case S_IFDIR: kind = .directory
            case S_IFLNK:
                kind = .symlink
                target = try? FileManager.default.destinationOfSymbolicLink(atPath: root + "/" + path)
            default: kind = .other
            }
            entries.append(Entry(path: path, kind: kind, size: kind == .directory ? 0 : Int64(st.st_size),
                                 mtimeNs: POSIX.modificationNanoseconds(st),
                                 ctimeNs: POSIX.changeNanoseconds(st),
                                 inode: UInt64(st.st_ino), linkTarget: target))
            if kind == .directory { walk(root: root, relative: path, into: &entries) }
        }
    }

    /// Bytes of the regular files.
    package var fileBytes: Int64 { entries.filter { $0.kind == .file }.reduce(0) { $0 + $1.size } }
}
