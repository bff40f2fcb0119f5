import Foundation
import Testing
import ModelStore

struct SHA256Tests {
    @Test func `matches the FIPS 180-4 and NIST example vectors`() {
        #expect(SHA256.hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func `block-boundary lengths and split updates give the one-shot digest`() {
        let data = sampleBytes(1000)
        for length in [55, 56, 63, 64, 65, 119, 120, 128, 1000] {
            let whole = SHA256.hex(of: data[0..<length])
            for split in [1, 7, 63, 64, 65] where split < length {
                var hasher = SHA256()
                var offset = 0
                while offset < length {
                    let end = min(length, offset + split)
                    hasher.update(Array(data[offset..<end]))
                    offset = end
                }
                #expect(hasher.finalize().hexString == whole, "length \(length) split \(split)")
            }
        }
    }

    @Test func `agrees with sha256sum on a multi-megabyte file`() throws {
        let path = NSTemporaryDirectory() + "/ondevice-sha-\(getpid()).bin"
        defer { FileSystem.removeTree(path) }
        try Data(sampleBytes(3 << 20, seed: 42)).write(to: URL(fileURLWithPath: path))
        let start = ContinuousClock.now
        let ours = try FileSystem.sha256(of: path)
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        print("SHA-256 (this build): \(String(format: "%.1f", 3 / seconds)) MiB/s")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(output.split(separator: " ").first.map(String.init) == ours)
    }
}
