import Foundation
import Tensor
import Testing

/// Releasing the pages of a mapped file: only whole pages inside the range, never outside the
/// mapping, and the bytes read afterwards are the file's.
struct MappedRegionTests {
    @Test func `evicted pages read back as the file's bytes`() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("evict-\(UUID().uuidString).bin").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = (0..<(5 * page + 123)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let region = try MappedRegion(path: path)
        let base = try #require(region.base)
        #expect(Array(region.bytes) == bytes)
        // From the middle of page 0 to the middle of page 4: pages 1 to 3 are whole.
        #expect(region.evict(base + page / 2, byteCount: 4 * page) == 3 * page)
        #expect(Array(region.bytes) == bytes)
        #expect(region.evict(base + 10, byteCount: page / 2) == 0, "no whole page inside")
        #expect(region.evict(base + page, byteCount: 10 * page) == 0, "past the end of the mapping")
        let view = TensorView(name: "t", type: .f32, shape: [page], data: base, byteCount: 4 * page, owner: region)
        #expect(view.evictPages() == 4 * page)
        #expect(Array(region.bytes) == bytes)
    }
}

#if canImport(Glibc)
import Glibc
#endif
