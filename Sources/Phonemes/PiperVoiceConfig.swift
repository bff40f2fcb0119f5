import Foundation

/// A Piper voice's `*.onnx.json`: what the text front end and the synthesizer need from it.
///
/// Layout read (JSON object; other keys ignored):
/// ```
/// { "audio": { "sample_rate": 22050 },
///   "espeak": { "voice": "en-us" },
///   "phoneme_type": "espeak",                      // optional, espeak when absent
///   "inference": { "noise_scale": 0.667, "length_scale": 1, "noise_w": 0.8 },
///   "phoneme_id_map": { "_": [0], "^": [1], "$": [2], " ": [3], "a": [14], ... } }
/// ```
/// Each `phoneme_id_map` key is one Unicode scalar; its value lists the ids it becomes (one in
/// every published voice, but the format allows several).
package struct PiperVoiceConfig: Sendable, Equatable {
    /// Output samples per second.
    package var sampleRate: Int
    /// The espeak-ng voice the model was trained with (`en-us`).
    package var espeakVoice: String
    /// Inference defaults: `noise_scale`, `length_scale`, `noise_w`.
    package var noiseScale: Float
    package var lengthScale: Float
    package var noiseW: Float
    /// Phoneme (one scalar) → model input ids.
    package var phonemeIDMap: [Unicode.Scalar: [Int]]

    /// Piper's reserved symbols: pad between phonemes, sentence start and end.
    package static let pad: Unicode.Scalar = "_"
    package static let bos: Unicode.Scalar = "^"
    package static let eos: Unicode.Scalar = "$"

    package init(sampleRate: Int, espeakVoice: String, noiseScale: Float, lengthScale: Float, noiseW: Float,
                 phonemeIDMap: [Unicode.Scalar: [Int]]) {
        self.sampleRate = sampleRate
        self.espeakVoice = espeakVoice
        self.noiseScale = noiseScale
        self.lengthScale = lengthScale
        self.noiseW = noiseW
        self.phonemeIDMap = phonemeIDMap
    }

    /// Reads and parses the config at `path`.
    package init(path: String) throws(PhonemeError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
        try self.init(json: data)
    }

    /// Parses config JSON.
    package init(json: Data) throws(PhonemeError) {
        let root: [String: Any]
        do {
            guard let object = try JSONSerialization.jsonObject(with: json) as? [String: Any] else {
                throw PhonemeError.malformedJSON(reason: "top level is not an object")
            }
            root = object
        } catch let error as PhonemeError {
            throw error
        } catch {
            throw .malformedJSON(reason: error.localizedDescription)
        }
        if let type = root["phoneme_type"] {
            guard let type = type as? String else { throw .invalidValue(key: "phoneme_type", expected: "a string") }
            guard type == "espeak" else { throw .unsupportedPhonemeType(type) }
        }
        let audio = try Self.object(root, "audio")
        guard let rate = audio["sample_rate"] else { throw .missingKey("audio.sample_rate") }
        guard let rate = Self.integer(rate), rate > 0 else { throw .invalidValue(key: "audio.sample_rate", expected: "a positive integer") }
        let espeak = try Self.object(root, "espeak")
        guard let voice = espeak["voice"] else { throw .missingKey("espeak.voice") }
        guard let voice = voice as? String, !voice.isEmpty else { throw .invalidValue(key: "espeak.voice", expected: "a voice name") }
        let inference = try Self.object(root, "inference")
        let scales = try ["noise_scale", "length_scale", "noise_w"].map { (key: String) throws(PhonemeError) -> Float in
            guard let value = inference[key] else { throw .missingKey("inference." + key) }
            guard let number = Self.number(value) else { throw .invalidValue(key: "inference." + key, expected: "a number") }
            return number.floatValue
        }
        let map = try Self.object(root, "phoneme_id_map")
        var ids: [Unicode.Scalar: [Int]] = [:]
        for (key, value) in map {
            let scalars = Array(key.unicodeScalars)
            guard scalars.count == 1 else { throw .invalidValue(key: "phoneme_id_map[\(key)]", expected: "a single-code-point key") }
            guard let list = value as? [Any], !list.isEmpty else {
                throw .invalidValue(key: "phoneme_id_map[\(key)]", expected: "a non-empty list of ids")
            }
            var row: [Int] = []
            for item in list {
                guard let id = Self.integer(item), id >= 0 else { throw .invalidValue(key: "phoneme_id_map[\(key)]", expected: "non-negative integer ids") }
                row.append(id)
            }
            ids[scalars[0]] = row
        }
        for reserved in [Self.pad, Self.bos, Self.eos] where ids[reserved] == nil {
            throw .missingKey("phoneme_id_map[\(reserved)]")
        }
        self.init(sampleRate: rate, espeakVoice: voice, noiseScale: scales[0], lengthScale: scales[1], noiseW: scales[2],
                  phonemeIDMap: ids)
    }

    private static func object(_ parent: [String: Any], _ key: String) throws(PhonemeError) -> [String: Any] {
        guard let value = parent[key] else { throw .missingKey(key) }
        guard let object = value as? [String: Any] else { throw .invalidValue(key: key, expected: "an object") }
        return object
    }

    /// A JSON number. JSONSerialization gives NSNumber for booleans too, and on Linux any
    /// NSNumber casts to Bool, so booleans are told apart by their storage type ("c").
    private static func number(_ value: Any) -> NSNumber? {
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        return number
    }

    /// An integral JSON number.
    private static func integer(_ value: Any) -> Int? {
        guard let number = number(value) else { return nil }
        let double = number.doubleValue
        guard double.rounded() == double, abs(double) < 1e15 else { return nil }
        return Int(double)
    }
}
