/// A read-only view of one tensor's bytes in a mapped file (or any owned storage), zero-copy.
///
/// `shape` is in ggml order: `shape[0]` is the innermost (contiguous) dimension, so a weight
/// matrix with `rows` outputs and `cols` inputs has `shape == [cols, rows]`.
///
/// `@unchecked Sendable`: `data` points into immutable storage kept alive by `owner`.
package struct TensorView: @unchecked Sendable {
    package let name: String
    package let type: GGMLType
    package let shape: [Int]
    package let data: UnsafeRawPointer
    package let byteCount: Int
    /// Keeps the storage behind `data` alive.
    package let owner: AnyObject

    package init(name: String, type: GGMLType, shape: [Int], data: UnsafeRawPointer, byteCount: Int, owner: AnyObject) {
        self.name = name
        self.type = type
        self.shape = shape
        self.data = data
        self.byteCount = byteCount
        self.owner = owner
    }

    /// Total element count.
    package var elementCount: Int { shape.reduce(1, *) }
    /// Elements per row (the innermost dimension).
    package var rowLength: Int { shape.first ?? 1 }
    /// Number of rows (product of every dimension but the innermost).
    package var rowCount: Int { shape.dropFirst().reduce(1, *) }
    /// Bytes per row.
    package var rowBytes: Int { (type.rowBytes(elements: rowLength) ?? 0) }
    /// Drops this tensor's pages from resident memory when it lives in a mapped file (see
    /// `MappedRegion.evict`); storage of any other kind is left alone. Returns the bytes released.
    @discardableResult
    package func evictPages() -> Int {
        (owner as? MappedRegion)?.evict(data, byteCount: byteCount) ?? 0
    }

    /// Pointer to row `i`.
    @inline(__always) package func row(_ i: Int) -> UnsafeRawPointer { data + i * rowBytes }
}

/// Owned, aligned float storage usable as a `TensorView` owner (tests, converted weights).
///
/// `@unchecked Sendable`: written only during construction, then read-only.
package final class OwnedBuffer: @unchecked Sendable {
    package let pointer: UnsafeMutableRawPointer
    package let count: Int

    package init(byteCount: Int, alignment: Int = 64) {
        count = byteCount
        pointer = UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: alignment)
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 1))
    }

    package convenience init(bytes: [UInt8]) {
        self.init(byteCount: bytes.count)
        bytes.withUnsafeBytes { pointer.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
    }

    deinit { pointer.deallocate() }
}
