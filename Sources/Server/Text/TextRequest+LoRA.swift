import StructuredOutput

/// The `lora` extension field (chat and completions): LoRA adapters applied to this request only,
/// so one resident base model serves several specializations. Accepted shapes:
/// `"lora": [{"id": "<store id or file path>", "scale": 1.0}, "<id>"]`, or one such item alone;
/// a bare string, or an object without `scale`, means scale 1.
extension TextRequest {
    /// One requested adapter, as the client named it.
    struct AdapterChoice: Equatable {
        var id: String
        var scale: Float
    }

    static func adapters(_ value: JSONValue?) throws(ServerError) -> [AdapterChoice] {
        guard let value, !value.isNull else { return [] }
        let items = value.array ?? [value]
        var out: [AdapterChoice] = []
        for (i, item) in items.enumerated() {
            let param = "lora[\(i)]"
            if let id = item.string {
                guard !id.isEmpty else { throw .invalidRequest("\(param) must not be empty", param: "lora") }
                out.append(AdapterChoice(id: id, scale: 1))
                continue
            }
            guard case .object = item, let id = item["id"]?.string, !id.isEmpty else {
                throw .invalidRequest("\(param) must be an adapter id or {\"id\": string, \"scale\": number}", param: "lora")
            }
            var scale: Float = 1
            if let raw = item["scale"], !raw.isNull {
                // A JSON number beyond Float's range would become infinite and poison every logit.
                guard let n = raw.number, Float(n).isFinite else {
                    throw .invalidRequest("\(param).scale must be a finite number", param: "lora")
                }
                scale = Float(n)
            }
            out.append(AdapterChoice(id: id, scale: scale))
        }
        return out
    }

    /// What the response's `lora` field echoes: the adapters applied, as requested.
    var adaptersJSON: JSONValue {
        .array(adapters.map { .make([("id", .string($0.id)), ("scale", .number(Double($0.scale)))]) })
    }
}
