/// Checks names that become paths under the store root, so no id, repo, revision, variant or file
/// name can point outside it: no `..` or `.` components, no absolute paths, no backslashes, no NUL
/// or other control bytes, and components that may not start with `.` where the store keeps its
/// own bookkeeping (`.staging`, `.meta`, `.locks`).
package enum SafeName {
    /// A model id: 1–128 bytes of `[A-Za-z0-9._-]`, not starting with `.` or `-`.
    package static func checkModelId(_ id: String) throws(StoreError) {
        let bytes = Array(id.utf8)
        guard !bytes.isEmpty, bytes.count <= 128, bytes[0] != UInt8(ascii: "."), bytes[0] != UInt8(ascii: "-"),
              bytes.allSatisfy(isPlainByte) else { throw .invalidModelId(id: id) }
    }

    /// One directory level of the layout (repo owner or name, revision, variant): like a model id.
    package static func checkLayoutComponent(_ component: String) throws(StoreError) {
        let bytes = Array(component.utf8)
        guard !bytes.isEmpty, bytes.count <= 128, bytes[0] != UInt8(ascii: "."),
              bytes.allSatisfy(isPlainByte) else { throw .invalidPath(path: component) }
    }

    /// A repo: `owner/name`, or a single name; each part a layout component.
    package static func checkRepo(_ repo: String) throws(StoreError) {
        let parts = repo.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { throw .invalidPath(path: repo) }
        for part in parts {
            do { try checkLayoutComponent(String(part)) } catch { throw .invalidPath(path: repo) }
        }
    }

    /// A file name inside a model directory: a relative path whose components are non-empty,
    /// not `.` or `..`, free of control bytes and backslashes, and not ending in `.partial`
    /// (the suffix downloads in progress use).
    package static func checkRelativeFile(_ path: String) throws(StoreError) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= 1024, bytes[0] != UInt8(ascii: "/"),
              !bytes.contains(where: { $0 < 0x20 || $0 == 0x7f || $0 == UInt8(ascii: "\\") }),
              !path.hasSuffix(".partial") else { throw .invalidPath(path: path) }
        for component in path.split(separator: "/", omittingEmptySubsequences: false) {
            guard !component.isEmpty, component != ".", component != ".." else { throw .invalidPath(path: path) }
        }
    }

    private static func isPlainByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}
