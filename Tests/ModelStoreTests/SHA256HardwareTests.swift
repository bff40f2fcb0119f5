import Foundation
import ModelStore
import Testing
import TestSupport

/// The SHA-NI block function against the NIST vectors and against the portable Swift rounds.
@Suite(.enabled(if: SHA256.Backend.hardwareAvailable, "this CPU has no SHA extensions"))
struct SHA256HardwareTests {
    @Test func `SHA-NI matches the FIPS 180-4 and NIST example vectors`() {
        #expect(SHA256.hex(of: [], backend: .hardware) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8), backend: .hardware)
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8), backend: .hardware)
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 1_000_000), backend: .hardware)
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func `SHA-NI equals the portable rounds on random lengths and splits`() {
        var rng = SeededGenerator(seed: 0x5eed)
        let data = (0..<20_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        var lengths = [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 20_000]
        for _ in 0..<200 { lengths.append(Int(rng.next() % 20_000)) }
        for length in lengths {
            let portable = SHA256.hex(of: data[0..<length], backend: .portable)
            #expect(SHA256.hex(of: data[0..<length], backend: .hardware) == portable, "length \(length)")
            // Feeding in uneven pieces exercises the carried tail before and after whole blocks.
            var hasher = SHA256(backend: .hardware)
            var offset = 0
            while offset < length {
                let end = min(length, offset + 1 + Int(rng.next() % 300))
                hasher.update(Array(data[offset..<end]))
                offset = end
            }
            #expect(hasher.finalize().hexString == portable, "length \(length), split")
        }
    }

    @Test func `unaligned input pointers hash the same`() {
        let data = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        let expected = SHA256.hex(of: data[1..<4001], backend: .portable)
        data.withUnsafeBytes { raw in
            var hasher = SHA256(backend: .hardware)
            hasher.update(UnsafeRawBufferPointer(rebasing: raw[1..<4001]))  // odd address
            #expect(hasher.finalize().hexString == expected)
        }
    }

    @Test func `the preferred backend is the hardware one on this CPU`() {
        #expect(SHA256.Backend.preferred == .hardware)
        #expect(SHA256().backend == .hardware)
    }
}
