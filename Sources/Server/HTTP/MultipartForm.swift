/// A `multipart/form-data` body (RFC 7578) split into its parts.
///
/// Layout read: `--boundary CRLF`, part headers (`Content-Disposition: form-data; name="…"
/// [; filename="…"]`, optional `Content-Type`) ending in an empty line, the part's bytes, then
/// `CRLF --boundary` and either `CRLF` (another part) or `--` (the end). Bytes before the first
/// delimiter (the preamble) are skipped.
package struct MultipartForm {
    package struct Part {
        package var name: String
        package var filename: String?
        package var contentType: String?
        package var body: [UInt8]
    }

    package var parts: [Part] = []

    func part(_ name: String) -> Part? { parts.first { $0.name == name } }

    /// The text of field `name`.
    func field(_ name: String) -> String? { part(name).map { String(decoding: $0.body, as: UTF8.self) } }

    /// The boundary parameter of a `Content-Type` header value.
    package static func boundary(contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingWhitespace().lowercased() == "boundary" else { continue }
            var value = pair[1].trimmingWhitespace()
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value.isEmpty || value.count > 200 ? nil : value
        }
        return nil
    }

    package init(body: [UInt8], boundary: String) throws(ServerError) {
        let delimiter = Array("--\(boundary)".utf8)
        guard var at = HTTPRequestReader.find(delimiter, in: body, from: 0) else { throw .invalidRequest("multipart body has no boundary line") }
        let next = Array("\r\n--\(boundary)".utf8)
        while true {
            at += delimiter.count
            guard at + 2 <= body.count else { throw .invalidRequest("multipart body ends early") }
            if body[at] == UInt8(ascii: "-") && body[at + 1] == UInt8(ascii: "-") { return }
            guard body[at] == 13 && body[at + 1] == 10 else { throw .invalidRequest("multipart boundary not followed by CRLF") }
            let headStart = at + 2
            guard let headEnd = HTTPRequestReader.find([13, 10, 13, 10], in: body, from: headStart) else {
                throw .invalidRequest("multipart part has no header end")
            }
            guard let end = HTTPRequestReader.find(next, in: body, from: headEnd + 4) else {
                throw .invalidRequest("multipart part has no closing boundary")
            }
            parts.append(try Self.part(head: Array(body[headStart..<headEnd]), body: Array(body[(headEnd + 4)..<end])))
            at = end + 2
        }
    }

    private static func part(head: [UInt8], body: [UInt8]) throws(ServerError) -> Part {
        var part = Part(name: "", body: body)
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n") {
            let pair = line.split(separator: ":", maxSplits: 1)
            guard pair.count == 2 else { continue }
            let value = pair[1].trimmingWhitespace()
            switch pair[0].lowercased() {
            case "content-disposition":
                for parameter in value.split(separator: ";").dropFirst() {
                    let kv = parameter.split(separator: "=", maxSplits: 1)
                    guard kv.count == 2 else { continue }
                    var v = kv[1].trimmingWhitespace()
                    if v.hasPrefix("\""), v.hasSuffix("\""), v.count >= 2 { v = String(v.dropFirst().dropLast()) }
                    switch kv[0].trimmingWhitespace().lowercased() {
                    case "name": part.name = v
                    case "filename": part.filename = v
                    default: break
                    }
                }
            case "content-type": part.contentType = value
            default: break
            }
        }
        guard !part.name.isEmpty else { throw .invalidRequest("multipart part without a name") }
        return part
    }
}

extension Substring {
    func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
