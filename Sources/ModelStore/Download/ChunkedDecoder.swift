import Foundation

// Chunked transfer coding (RFC 9112 §7.1): repeated `hex-size[;ext] CRLF data CRLF`, ended by a
// zero-size chunk, optional trailer lines, and an empty line.

/// Incremental decoder for a chunked body; feed it bytes as they arrive.
struct ChunkedDecoder {
    private enum State { case size, data(remaining: Int), dataEnd, trailer }
    private var state = State.size
    private var line = [UInt8]()

    /// Decodes `bytes`, passing body slices to `emit`; returns true once the body is complete.
    mutating func feed(_ bytes: [UInt8], url: String,
                       emit: (UnsafeRawBufferPointer) throws(StoreError) -> Void) throws(StoreError) -> Bool {
        var index = 0
        while index < bytes.count {
            switch state {
            case .data(let remaining):
                let take = min(remaining, bytes.count - index)
                try bytes.withBytes { (raw: UnsafeRawBufferPointer) throws(StoreError) in
                    try emit(UnsafeRawBufferPointer(rebasing: raw[index..<(index + take)]))
                }
                index += take
                state = remaining == take ? .dataEnd : .data(remaining: remaining - take)
            case .size, .dataEnd, .trailer:
                let byte = bytes[index]
                index += 1
                guard byte == 10 else { if byte != 13 { line.append(byte) }; continue }
                let text = String(decoding: line, as: UTF8.self)
                line.removeAll(keepingCapacity: true)
                switch state {
                case .size:
                    let sizeText = text.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
                    guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                        throw .connection(url: url, reason: "bad chunk size '\(text.prefix(40))'")
                    }
                    state = size == 0 ? .trailer : .data(remaining: size)
                case .dataEnd:
                    guard text.isEmpty else { throw .connection(url: url, reason: "chunk not followed by CRLF") }
                    state = .size
                case .trailer:
                    if text.isEmpty { return true }
                case .data:
                    break
                }
            }
        }
        return false
    }
}
