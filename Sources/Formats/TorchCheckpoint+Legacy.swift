/// The legacy (pre-zip) `torch.save` layout; see `TorchCheckpoint` for the byte layout.
extension TorchCheckpoint {
    /// 0x1950a86a20f9469cfc6c as the little-endian bytes LONG1 carries.
    static let legacyMagic: [UInt8] = [0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19]
    static let legacyProtocolVersion = 1001

    static func readLegacy(_ bytes: UnsafeRawBufferPointer) throws(FormatError)
        -> (names: [String], infos: [String: TorchTensorInfo]) {
        var machine = PickleMachine(bytes: bytes, offset: 0)
        guard case .bigInt(let magic) = try machine.run(), magic == legacyMagic else {
            throw .invalidHeader(format: "torch", detail: "not a torch.save file (no magic number 0x1950a86a20f9469cfc6c)")
        }
        var at = machine.offset
        guard case .int(let version) = try machine.run(), version == legacyProtocolVersion else {
            throw .invalidHeader(format: "torch", detail: "protocol version at offset \(at) is not \(legacyProtocolVersion)")
        }
        at = machine.offset
        guard case .dict(let sysInfo) = try machine.run() else {
            throw .pickleMalformed(detail: "sys_info is not a dict", offset: at)
        }
        // Storages are raw machine-order elements; only little-endian writers are read.
        let littleEndian = sysInfo.entries.contains { entry in
            if case .string("little_endian") = entry.key, case .bool(true) = entry.value { return true }
            return false
        }
        guard littleEndian else { throw .invalidHeader(format: "torch", detail: "sys_info does not say little_endian") }
        let stateAt = machine.offset
        let state = try machine.run()
        at = machine.offset
        guard case .list(let keyList) = try machine.run() else {
            throw .pickleMalformed(detail: "the storage key list is not a list", offset: at)
        }
        var offset = machine.offset
        var storages: [String: (offset: Int, count: Int)] = [:]
        for item in keyList.items {
            guard case .string(let key) = item else { throw .pickleMalformed(detail: "a storage key is not a string", offset: at) }
            guard let ref = machine.storages[key] else {
                throw .pickleMalformed(detail: "storage '\(key)' is listed but no tensor names it", offset: at)
            }
            guard bytes.count - offset >= 8 else {
                throw .truncated(field: "storage '\(key)' count", offset: offset, needed: 8, fileSize: bytes.count)
            }
            let count = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self))
            guard count == Int64(ref.count) else {
                throw .pickleMalformed(detail: "storage '\(key)' holds \(count) elements, its id says \(ref.count)", offset: offset)
            }
            offset += 8
            let size = ref.type.elementSize
            guard ref.count <= (bytes.count - offset) / size else {
                throw .truncated(field: "storage '\(key)' elements", offset: offset, needed: ref.count * size, fileSize: bytes.count)
            }
            storages[key] = (offset, ref.count)
            offset += ref.count * size
        }
        return try tensors(of: state, storages: storages, at: stateAt)
    }
}
