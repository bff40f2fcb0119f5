// SHA-256 per FIPS 180-4 §6.2: 512-bit blocks, big-endian words, 64 rounds over a 64-word
// message schedule; the message is padded with 0x80, zeros, and its bit length as a big-endian u64.
// Ours because Linux has no CryptoKit and the package takes no outside dependencies; it hashes
// model files while they stream, so the block loop works on raw pointers with no allocation.
// On CPUs with the x86 SHA extensions the blocks go to CKernels' SHA-NI loop instead (about 5x
// faster); these portable rounds stay the reference it is tested against.
import CKernels

/// Incremental SHA-256. `update` as bytes arrive, `finalize` once.
package struct SHA256: Sendable {
    private var h: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
        (0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19)
    /// Bytes of an incomplete block carried to the next `update`.
    private var tail = [UInt8]()
    private var totalBytes: UInt64 = 0
    package let backend: Backend

    /// `backend` defaults to the fastest this CPU runs; `.hardware` must be available.
    package init(backend: Backend = .preferred) {
        precondition(backend == .portable || Backend.hardwareAvailable, "SHA-NI requested on a CPU without it")
        self.backend = backend
        tail.reserveCapacity(64)
    }

    /// Digest of a whole buffer, as lowercase hex.
    package static func hex<Bytes: Sequence>(of bytes: Bytes, backend: Backend = .preferred) -> String where Bytes.Element == UInt8 {
        var hasher = SHA256(backend: backend)
        let array = Array(bytes)
        array.withUnsafeBytes { hasher.update($0) }
        return hasher.finalize().hexString
    }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress, bytes.count > 0 else { return }
        var remaining = bytes.count
        totalBytes &+= UInt64(remaining)
        if !tail.isEmpty {
            let take = min(64 - tail.count, remaining)
            tail.append(contentsOf: UnsafeRawBufferPointer(start: base, count: take))
            base += take
            remaining -= take
            if tail.count < 64 { return }
            tail.withUnsafeBytes { compress($0.baseAddress!, blocks: 1) }
            tail.removeAll(keepingCapacity: true)
        }
        let whole = remaining / 64
        if whole > 0 { compress(base, blocks: whole) }
        let rest = remaining - whole * 64
        if rest > 0 { tail.append(contentsOf: UnsafeRawBufferPointer(start: base + whole * 64, count: rest)) }
    }

    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Pads, processes the last block(s) and returns the 32-byte digest.
    package consuming func finalize() -> SHA256Digest {
        let bitLength = totalBytes &* 8
        var pad = tail
        pad.append(0x80)
        while pad.count % 64 != 56 { pad.append(0) }
        for shift in stride(from: 56, through: 0, by: -8) { pad.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift))) }
        pad.withUnsafeBytes { compress($0.baseAddress!, blocks: $0.count / 64) }
        var out = [UInt8]()
        out.reserveCapacity(32)
        for word in [h.0, h.1, h.2, h.3, h.4, h.5, h.6, h.7] {
            out.append(contentsOf: [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16),
                                    UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)])
        }
        return SHA256Digest(bytes: out)
    }

    // The hot loop. Rounds are unrolled eight at a time with the working variables renamed
    // instead of shifted (the round that would move h←g←f… just changes which names it writes),
    // and the schedule lives in a 64-word stack buffer.
    @_optimize(speed)
    private mutating func compress(_ data: UnsafeRawPointer, blocks: Int) {
        if backend == .hardware {
            // The tuple's eight UInt32 are contiguous and bound as UInt32: the C side's uint32_t[8].
            withUnsafeMutableBytes(of: &h) { state in
                od_sha256_compress_hw(state.baseAddress!.assumingMemoryBound(to: UInt32.self),
                                      data.assumingMemoryBound(to: UInt8.self), blocks)
            }
            return
        }
        var (h0, h1, h2, h3, h4, h5, h6, h7) = h
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { buffer in
            SHA256.roundConstants.withUnsafeBufferPointer { constants in
                let w = buffer.baseAddress!, k = constants.baseAddress!
                for block in 0..<blocks {
                    let p = data + block * 64
                    for i in 0..<16 { w[i] = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)) }
                    for i in 16..<64 {
                        let x = w[i - 15], y = w[i - 2]
                        let s0 = x.rotr(7) ^ x.rotr(18) ^ (x >> 3)
                        let s1 = y.rotr(17) ^ y.rotr(19) ^ (y >> 10)
                        w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
                    }
                    var a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, hh = h7
                    var i = 0
                    while i < 64 {
                        SHA256.round(a, b, c, &d, e, f, g, &hh, k[i] &+ w[i])
                        SHA256.round(hh, a, b, &c, d, e, f, &g, k[i + 1] &+ w[i + 1])
                        SHA256.round(g, hh, a, &b, c, d, e, &f, k[i + 2] &+ w[i + 2])
                        SHA256.round(f, g, hh, &a, b, c, d, &e, k[i + 3] &+ w[i + 3])
                        SHA256.round(e, f, g, &hh, a, b, c, &d, k[i + 4] &+ w[i + 4])
                        SHA256.round(d, e, f, &g, hh, a, b, &c, k[i + 5] &+ w[i + 5])
                        SHA256.round(c, d, e, &f, g, hh, a, &b, k[i + 6] &+ w[i + 6])
                        SHA256.round(b, c, d, &e, f, g, hh, &a, k[i + 7] &+ w[i + 7])
                        i += 8
                    }
                    h0 &+= a; h1 &+= b; h2 &+= c; h3 &+= d
                    h4 &+= e; h5 &+= f; h6 &+= g; h7 &+= hh
                }
            }
        }
        h = (h0, h1, h2, h3, h4, h5, h6, h7)
    }

    /// One round: `d += T1`, `h = T1 + T2` (the caller renames the rest).
    @_optimize(speed) @inline(__always)
    private static func round(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
                              _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32) {
        let t1 = h &+ (e.rotr(6) ^ e.rotr(11) ^ e.rotr(25)) &+ (g ^ (e & (f ^ g))) &+ kw
        let t2 = (a.rotr(2) ^ a.rotr(13) ^ a.rotr(22)) &+ ((a & b) | (c & (a | b)))
        d &+= t1
        h = t1 &+ t2
    }

    // First 32 bits of the fractional parts of the cube roots of the first 64 primes (FIPS 180-4 §4.2.2).
    private static let roundConstants: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
}

/// A 32-byte SHA-256 digest.
package struct SHA256Digest: Sendable, Hashable {
    package let bytes: [UInt8]

    /// Lowercase hex, the form catalogs, `sha256sum` and Hugging Face's `X-Linked-Etag` use.
    package var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in bytes { out.append(digits[Int(byte >> 4)]); out.append(digits[Int(byte & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}

extension UInt32 {
    @_optimize(speed) @inline(__always) fileprivate func rotr(_ n: UInt32) -> UInt32 { (self >> n) | (self << (32 - n)) }
}
