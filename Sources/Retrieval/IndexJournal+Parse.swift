/// Replaying journal bytes.
extension IndexJournal {
    /// Reads the header and every record (layout in `IndexJournal`).
    ///
    /// Only the last record can be torn, because records are appended in order and each append
    /// is synced before the next: a record whose length runs past the end of the file, or whose
    /// checksum fails while it ends exactly at the end of the file, is a torn final write and is
    /// reported in `tornBytes`, as is a tail of zero bytes. A bad checksum followed by more data, or a checksummed record
    /// that does not decode, is damage of another kind and an error.
    static func parse(_ bytes: UnsafeRawBufferPointer, path: String) throws(RetrievalError) -> Replay {
        let header = header()
        guard bytes.count >= headerSize else { throw .corruptIndex(path: path, offset: 0, reason: "shorter than the header") }
        guard bytes.prefix(8).elementsEqual(magic) else { throw .corruptIndex(path: path, offset: 0, reason: "not an index journal") }
        guard bytes.prefix(headerSize).elementsEqual(header) else {
            let version = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            throw .corruptIndex(path: path, offset: 8, reason: "unsupported version \(version) or damaged header")
        }
        var replay = Replay()
        var offset = headerSize
        while offset < bytes.count {
            let left = bytes.count - offset
            guard left >= recordHeaderSize else {
                replay.tornBytes = left
                break
            }
            let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            let crc = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
            let end = offset + recordHeaderSize + length
            guard length <= maxPayload, end <= bytes.count else {
                replay.tornBytes = left
                break
            }
            let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<end])
            guard CRC32C.checksum(body) == crc else {
                // A tail of zeros is space a crash allocated but never filled.
                let zeroTail = bytes[offset...].allSatisfy { $0 == 0 }
                guard end == bytes.count || zeroTail else {
                    throw .corruptIndex(path: path, offset: offset, reason: "record checksum mismatch before the end of the journal")
                }
                replay.tornBytes = left
                break
            }
            do {
                let payload = UnsafeRawBufferPointer(rebasing: body.dropFirst())
                replay.records.append(try JournalRecord.decode(type: body[0], payload: payload))
            } catch {
                throw .corruptIndex(path: path, offset: offset + recordHeaderSize + error.offset, reason: "cannot decode \(error.field)")
            }
            offset = end
        }
        replay.validBytes = offset
        return replay
    }
}
