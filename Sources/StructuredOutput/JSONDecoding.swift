import Foundation

/// Decodes JSON text into `T` with Foundation's decoder; failures become `EngineError.decoding`.
package func decode<T: Decodable>(_ json: String, as type: T.Type) throws(EngineError) -> T {
    do {
        return try JSONDecoder().decode(type, from: Data(json.utf8))
    } catch {
        throw .decoding(type: String(describing: type), reason: String(describing: error))
    }
}
