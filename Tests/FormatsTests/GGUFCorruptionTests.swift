import Foundation
import Formats
import Tensor
import Testing
import TestSupport

/// Damaged files fail with a `FormatError` (the typed throw guarantees the type); the tests check
/// that nothing crashes and that whatever does parse still only points inside the file.
@Suite struct GGUFCorruptionTests {
    @Test(arguments: [Int?.none, 64])
    func `every truncation of a valid file is a typed error`(alignment: Int?) throws {
        let full = GGUFTestFiles.small(alignment: alignment).bytes()
        #expect(try GGUFTestFiles.parse(full).get().tensorInfos.count == 2)
        for cut in 0..<full.count {
            let error = GGUFTestFiles.error(Array(full[0..<cut]))
            // A prefix can only end inside a fixed field, inside counted bytes, or inside tensor data.
            switch error {
            case .truncated?, .absurdCount?, .tensorOutOfBounds?: break
            default: Issue.record("cut at \(cut) of \(full.count): \(String(describing: error))")
            }
        }
    }

    @Test func `truncated files on disk are typed errors too`() throws {
        let full = GGUFTestFiles.small().bytes()
        let dir = try TemporaryDirectory()
        for cut in stride(from: 0, to: full.count, by: 7) {
            let path = dir.file("cut-\(cut).gguf")
            try Data(full[0..<cut]).write(to: URL(fileURLWithPath: path))
            #expect(throws: FormatError.self) { try GGUFFile.open(path: path) }
        }
    }

    @Test func `thousands of random byte flips never crash the reader`() throws {
        let original = GGUFTestFiles.small().bytes()
        let headerEnd = try GGUFTestFiles.parse(original).get().dataOffset
        var rng = SeededGenerator(seed: 0x6767_7566)
        var parsed = 0
        var failed = 0
        for trial in 0..<4000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                // Mostly the header, where every byte is structure; sometimes anywhere.
                let limit = trial % 4 == 0 ? bytes.count : headerEnd
                let index = Int.random(in: 0..<limit, using: &rng)
                bytes[index] = trial % 3 == 0 ? UInt8.random(in: 0...255, using: &rng) : bytes[index] ^ (1 << UInt8.random(in: 0...7, using: &rng))
            }
            switch GGUFTestFiles.parse(bytes) {
            case .failure: failed += 1
            case .success(let header):
                parsed += 1
                for info in header.tensorInfos {
                    #expect(info.offset >= header.dataOffset && info.offset + info.byteCount <= bytes.count)
                    #expect((info.offset - header.dataOffset) % header.alignment == 0)
                    #expect(info.type.rowBytes(elements: info.shape.first ?? 1) != nil)
                }
            }
        }
        // Both outcomes must occur, or the trial mix is not exercising the reader.
        #expect(parsed > 100 && failed > 1000, "parsed \(parsed), failed \(failed)")
    }

    @Test func `random garbage after a valid magic and version is a typed error`() {
        var rng = SeededGenerator(seed: 42)
        var failed = 0
        for length in stride(from: 0, through: 512, by: 3) {
            var e = GGUFEncoder()
            e.bytes = Array("GGUF".utf8)
            e.u32(3)
            e.bytes += (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if GGUFTestFiles.error(e.bytes) != nil { failed += 1 }
        }
        #expect(failed == 171)   // random counts are absurd or run out of bytes in every case
    }
}
