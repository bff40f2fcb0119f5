/// The zip `torch.save` layout (PyTorch ≥ 1.6). Zip structures (PKWARE APPNOTE 6.3), little-endian:
/// ```
/// end of central directory (22 bytes + comment, at the file's end):
///   u32 0x06054b50, u16 disk, u16 cd disk, u16 entries on disk, u16 entries, u32 cd size,
///   u32 cd offset, u16 comment length, comment
/// central directory entry (46 bytes + name + extra + comment):
///   u32 0x02014b50, u16 made by, u16 needed, u16 flags, u16 method, u16 time, u16 date, u32 crc,
///   u32 compressed size, u32 size, u16 name length, u16 extra length, u16 comment length,
///   u16 disk, u16 internal attrs, u32 external attrs, u32 local header offset, name, extra, comment
/// local file header (30 bytes + name + extra, then the data):
///   u32 0x04034b50, u16 needed, u16 flags, u16 method, u16 time, u16 date, u32 crc,
///   u32 compressed size, u32 size, u16 name length, u16 extra length, name, extra
/// ```
/// torch writes every entry stored (method 0), so entries are read in place; compressed entries
/// and zip64 archives (files over 4 GiB) are refused.
extension TorchCheckpoint {
    static func readZip(_ bytes: UnsafeRawBufferPointer) throws(FormatError)
        -> (names: [String], infos: [String: TorchTensorInfo]) {
        let entries = try zipEntries(bytes)
        guard let pickle = entries.first(where: { $0.key.hasSuffix("/data.pkl") && $0.key.split(separator: "/").count == 2 }) else {
            throw .invalidHeader(format: "torch zip", detail: "no data.pkl entry")
        }
        let root = String(pickle.key.dropLast("data.pkl".count))
        if let order = entries[root + "byteorder"], order.size > 0,
           String(decoding: bytes[order.offset..<order.offset + order.size], as: UTF8.self) != "little" {
            throw .invalidHeader(format: "torch zip", detail: "byteorder is not little")
        }
        var machine = PickleMachine(bytes: UnsafeRawBufferPointer(rebasing: bytes[..<(pickle.value.offset + pickle.value.size)]),
                                    offset: pickle.value.offset)
        let state = try machine.run()
        var storages: [String: (offset: Int, count: Int)] = [:]
        for (key, ref) in machine.storages {
            guard let entry = entries[root + "data/" + key] else {
                throw .invalidHeader(format: "torch zip", detail: "no entry for storage '\(key)'")
            }
            // Newer torch records the storage's byte size, not always its element count, so the
            // entry's size is the authority; it must hold what the id announces.
            let count = entry.size / ref.type.elementSize
            guard count >= ref.count else {
                throw .truncated(field: "storage '\(key)'", offset: entry.offset, needed: ref.count * ref.type.elementSize,
                                 fileSize: entry.offset + entry.size)
            }
            storages[key] = (entry.offset, count)
        }
        return try tensors(of: state, storages: storages, at: pickle.value.offset)
    }

    /// Entry name → (absolute data offset, size) of every stored entry.
    static func zipEntries(_ bytes: UnsafeRawBufferPointer) throws(FormatError) -> [String: (offset: Int, size: Int)] {
        func u16(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 }
        func u32(_ o: Int) -> Int { u16(o) | u16(o + 2) << 16 }
        func need(_ o: Int, _ n: Int, _ field: String) throws(FormatError) {
            guard o >= 0, n >= 0, o <= bytes.count, bytes.count - o >= n else {
                throw .truncated(field: field, offset: o, needed: n, fileSize: bytes.count)
            }
        }
        // The end record sits in the last 22 + 65535 bytes (its comment is at most 65535 bytes).
        let lowest = max(0, bytes.count - 22 - 65_535)
        var eocd = bytes.count - 22
        while eocd >= lowest && u32(eocd) != 0x0605_4B50 { eocd -= 1 }
        guard eocd >= lowest else {
            throw .truncated(field: "zip end of central directory", offset: max(bytes.count - 22, 0), needed: 22,
                             fileSize: bytes.count)
        }
        let count = u16(eocd + 10), cdOffset = u32(eocd + 16)
        guard count != 0xFFFF, cdOffset != 0xFFFF_FFFF else {
            throw .invalidHeader(format: "torch zip", detail: "zip64 archives are not read")
        }
        var entries: [String: (offset: Int, size: Int)] = [:]
        var at = cdOffset
        for _ in 0..<count {
            try need(at, 46, "zip central directory entry")
            guard u32(at) == 0x0201_4B50 else {
                throw .invalidHeader(format: "torch zip", detail: "bad central directory signature at offset \(at)")
            }
            let method = u16(at + 10), size = u32(at + 24), compressed = u32(at + 20)
            let nameLength = u16(at + 28), extraLength = u16(at + 30), commentLength = u16(at + 32)
            let local = u32(at + 42)
            try need(at + 46, nameLength, "zip entry name")
            let name = String(decoding: bytes[(at + 46)..<(at + 46 + nameLength)], as: UTF8.self)
            guard method == 0, compressed == size else {
                throw .invalidHeader(format: "torch zip", detail: "entry '\(name)' is compressed (method \(method))")
            }
            guard size != 0xFFFF_FFFF, local != 0xFFFF_FFFF else {
                throw .invalidHeader(format: "torch zip", detail: "zip64 archives are not read")
            }
            try need(local, 30, "zip local header of '\(name)'")
            guard u32(local) == 0x0403_4B50 else {
                throw .invalidHeader(format: "torch zip", detail: "bad local header signature at offset \(local)")
            }
            let data = local + 30 + u16(local + 26) + u16(local + 28)
            try need(data, size, "zip entry '\(name)'")
            entries[name] = (data, size)
            at += 46 + nameLength + extraLength + commentLength
        }
        return entries
    }
}
