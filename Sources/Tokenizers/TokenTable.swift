/// Token texts stored back to back, with an exact byte-string → id hash index.
///
/// Byte strings, not `String`: Swift `String` equality is canonical equivalence, which would
/// conflate tokens such as precomposed "é" and "e" + U+0301 that are different vocabulary entries.
/// Open addressing with linear probing, at most half full. Each slot keeps 32 bits of the hash
/// beside the id, so a probe that misses rarely touches the texts: the lookup is the hot spot of
/// SentencePiece merging, and on a 262k vocabulary it is bound by cache misses. The hash is
/// polynomial so the merge loop can hash a concatenation from its two halves in O(1).
///
/// `@unchecked Sendable`: the three allocations are written only in `init` and freed in `deinit`.
final class TokenTable: @unchecked Sendable {
    private let storage: UnsafeMutableBufferPointer<UInt8>
    private let offsets: UnsafeMutableBufferPointer<Int32>  // (count + 1): token i is storage[offsets[i] ..< offsets[i+1]]
    private let slots: UnsafeMutableBufferPointer<UInt64>  // (power of two): hash high 32 bits << 32 | (id + 1), 0 empty
    private let mask: Int

    let count: Int

    /// Builds the table; the second id of a repeated text is reported as a duplicate.
    init(texts: [String]) throws(TokenizerError) {
        count = texts.count
        let total = texts.reduce(0) { $0 + $1.utf8.count }
        storage = .allocate(capacity: max(total, 1))
        offsets = .allocate(capacity: texts.count + 1)
        var capacity = 16
        while capacity < texts.count * 2 { capacity <<= 1 }
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: 0)
        mask = capacity - 1
        var end = 0
        offsets[0] = 0
        for (id, text) in texts.enumerated() {
            for b in text.utf8 {
                storage[end] = b
                end += 1
            }
            offsets[id + 1] = Int32(end)
        }
        for id in 0..<texts.count {
            let text = self.text(Int32(id))
            let hash = Self.mix(Self.hash(text))
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 {
                let other = Int32(truncatingIfNeeded: slots[slot] & 0xFFFF_FFFF) - 1
                if slots[slot] >> 32 == hash >> 32 && self.text(other).elementsEqual(text) {
                    let duplicate = String(decoding: text, as: UTF8.self)
                    throw .duplicateToken(text: duplicate, firstId: other, secondId: Int32(id))
                }
                slot = (slot + 1) & mask
            }
            slots[slot] = (hash & 0xFFFF_FFFF_0000_0000) | UInt64(id + 1)
        }
    }

    deinit {
        storage.deallocate()
        offsets.deallocate()
        slots.deallocate()
    }

    /// The text of token `id` (caller checks the range).
    func text(_ id: Int32) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: storage[Int(offsets[Int(id)])..<Int(offsets[Int(id) + 1])])
    }

    func id(of text: [UInt8]) -> Int32? {
        text.withUnsafeBufferPointer { id(of: $0) }
    }

    func id(of text: UnsafeBufferPointer<UInt8>) -> Int32? { lookup.id(of: text) }

    /// The table's memory as a trivial value, so hot loops hold it without reference counting.
    var lookup: Lookup { Lookup(storage: storage, offsets: offsets, slots: slots, mask: mask) }

    /// Read-only view of a `TokenTable`; valid while the table is alive.
    struct Lookup {
        fileprivate let storage: UnsafeMutableBufferPointer<UInt8>
        fileprivate let offsets: UnsafeMutableBufferPointer<Int32>
        fileprivate let slots: UnsafeMutableBufferPointer<UInt64>
        fileprivate let mask: Int

        func id(of text: UnsafeBufferPointer<UInt8>) -> Int32? {
            id(of: text, hash: TokenTable.hash(text))
        }

        /// Looks a byte string up given its `TokenTable.hash` (which merge loops can combine
        /// from the hashes of the two halves instead of rehashing the bytes).
        func id(of text: UnsafeBufferPointer<UInt8>, hash: UInt64) -> Int32? {
            let mixed = TokenTable.mix(hash)
            let tag = mixed & 0xFFFF_FFFF_0000_0000
            var slot = Int(truncatingIfNeeded: mixed) & mask
            while true {
                let entry = slots[slot]
                if entry == 0 { return nil }
                if entry & 0xFFFF_FFFF_0000_0000 == tag {
                    let id = Int(entry & 0xFFFF_FFFF) - 1
                    let start = Int(offsets[id]), end = Int(offsets[id + 1])
                    if end - start == text.count,
                       text.count == 0 || TokenTable.equal(storage.baseAddress! + start, text.baseAddress!, text.count) {
                        return Int32(id)
                    }
                }
                slot = (slot + 1) & mask
            }
        }
    }

    /// Byte equality, eight bytes at a time (tokens are short; a libc call cost more than the compare).
    @inline(__always)
    fileprivate static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var i = 0
        while i + 8 <= n {
            let x = UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self)
            let y = UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self)
            if x != y { return false }
            i += 8
        }
        while i < n {
            if a[i] != b[i] { return false }
            i += 1
        }
        return true
    }

    /// Polynomial hash `Σ bytes[i]·B^(n-1-i)` mod 2⁶⁴, so that
    /// `hash(a + b) == hash(a) &* power(b.count) &+ hash(b)`.
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0
        for b in bytes { h = h &* base &+ UInt64(b) &+ 1 }
        return h
    }

    /// `B^n`, the factor that shifts a hash past `n` more bytes.
    static func power(_ n: Int) -> UInt64 {
        var p: UInt64 = 1
        for _ in 0..<n { p = p &* base }
        return p
    }

    static let base: UInt64 = 0x100_0000_01B3

    /// Finaliser (splitmix64's): the low bits pick the slot, the high 32 bits are the tag.
    fileprivate static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
