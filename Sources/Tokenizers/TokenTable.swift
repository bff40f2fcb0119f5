#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Token texts stored back to back, with an exact byte-string → id hash index.
///
/// Byte strings, not `String`: Swift `String` equality is canonical equivalence, which would
/// conflate tokens such as precomposed "é" and "e" + U+0301 that are different vocabulary entries.
/// Open addressing with linear probing over FNV-1a hashes; the table is at most half full.
struct TokenTable: Sendable {
    private let storage: [UInt8]
    private let offsets: [Int32]  // (count + 1): token i is storage[offsets[i] ..< offsets[i+1]]
    private let slots: [Int32]  // (power of two): token id or -1
    private let mask: Int

    var count: Int { offsets.count - 1 }

    /// Builds the table; the second id of a repeated text is reported as a duplicate.
    init(texts: [[UInt8]]) throws(TokenizerError) {
        var storage: [UInt8] = []
        storage.reserveCapacity(texts.reduce(0) { $0 + $1.count })
        var offsets: [Int32] = [0]
        offsets.reserveCapacity(texts.count + 1)
        for text in texts {
            storage.append(contentsOf: text)
            offsets.append(Int32(storage.count))
        }
        var capacity = 16
        while capacity < texts.count * 2 { capacity <<= 1 }
        var slots = [Int32](repeating: -1, count: capacity)
        let mask = capacity - 1
        try storage.withUnsafeBufferPointer { (all) throws(TokenizerError) in
            for id in 0..<texts.count {
                let text = UnsafeBufferPointer(rebasing: all[Int(offsets[id])..<Int(offsets[id + 1])])
                var slot = Int(truncatingIfNeeded: Self.hash(text)) & mask
                while slots[slot] >= 0 {
                    let other = Int(slots[slot])
                    let otherText = UnsafeBufferPointer(rebasing: all[Int(offsets[other])..<Int(offsets[other + 1])])
                    if otherText.elementsEqual(text) {
                        throw .duplicateToken(text: String(decoding: text, as: UTF8.self), firstId: Int32(other), secondId: Int32(id))
                    }
                    slot = (slot + 1) & mask
                }
                slots[slot] = Int32(id)
            }
        }
        self.storage = storage
        self.offsets = offsets
        self.slots = slots
        self.mask = mask
    }

    /// The text of token `id` (caller checks the range).
    func text(_ id: Int32) -> ArraySlice<UInt8> {
        storage[Int(offsets[Int(id)])..<Int(offsets[Int(id) + 1])]
    }

    func id<C: Collection<UInt8>>(of text: C) -> Int32? {
        if let found = text.withContiguousStorageIfAvailable({ id(of: $0) }) { return found }
        return Array(text).withUnsafeBufferPointer { id(of: $0) }
    }

    /// Looks a byte string up; the hot path of both tokenizers.
    func id(of text: UnsafeBufferPointer<UInt8>) -> Int32? {
        storage.withUnsafeBufferPointer { all in
            slots.withUnsafeBufferPointer { slots in
                offsets.withUnsafeBufferPointer { offsets in
                    var slot = Int(truncatingIfNeeded: Self.hash(text)) & mask
                    while true {
                        let candidate = slots[slot]
                        if candidate < 0 { return nil }
                        let start = Int(offsets[Int(candidate)])
                        let end = Int(offsets[Int(candidate) + 1])
                        if end - start == text.count,
                           text.count == 0 || memcmp(all.baseAddress! + start, text.baseAddress!, text.count) == 0 {
                            return candidate
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
        }
    }

    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3
        }
        return h ^ (h >> 29)
    }
}
