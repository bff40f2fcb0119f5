import Audio
import Foundation
import Imaging
import Retrieval
import TestSupport

/// Starting inputs for each target, built here so a fresh checkout can fuzz without any model
/// file (`scripts/fuzz.sh` adds the small real files it finds: tokenizers, configs, voices).
package enum FuzzSeeds {
    /// Seeds by target name.
    package static func all() -> [String: [[UInt8]]] {
        var seeds: [String: [[UInt8]]] = [:]
        var tiny = TinyModel()
        tiny.layers = 1
        tiny.embedding = 8
        tiny.heads = 2
        tiny.kvHeads = 1
        tiny.feedForward = 16
        tiny.contextLength = 16
        var models: [[UInt8]] = []
        for architecture in ["llama", "qwen2", "gemma3"] {
            tiny.architecture = architecture
            models.append(tiny.writer().bytes())
        }
        seeds["gguf"] = models
        seeds["gguf-model"] = models
        seeds["safetensors"] = [safetensors()]
        seeds["onnx"] = [onnx()]
        seeds["torch"] = [legacyPickle()]
        seeds["tflite"] = [tflite()]
        seeds["ctranslate2"] = [ctranslate2()]
        let clip = AudioClip(samples: (0..<800).map { Float(sin(Double($0) * 0.05)) * 0.5 }, sampleRate: 8000)
        seeds["wav"] = [WAVFile.encode(clip), WAVFile.encode(clip, format: .float32)]
        let speech = AudioClip(samples: (0..<16_000).map { Float(sin(Double($0) * 0.05)) * 0.5 }, sampleRate: 16_000)
        seeds["audio-file"] = [AudioEncoding.flac, .mp3, .opus].compactMap { try? AudioEncoder.encode(speech, as: $0) }
        let image = RGBImage(width: 8, height: 6, pixels: (0..<(8 * 6 * 3)).map { UInt8($0 * 5 % 256) })
        seeds["image"] = [(try? JPEGEncoder.encode(image)) ?? [], (try? JPEGEncoder.encode(image, progressive: true)) ?? []]
        seeds["json"] = [#"{"a":[1,2.5e-3,true,null,"x\u00e9\n"],"b":{"c":-0.0}}"#, "[]", #""\ud83d\ude00""#].map { Array($0.utf8) }
        seeds["json-schema"] = schemas.map { Array($0.schema.utf8) + [0] + Array($0.document.utf8) }
        seeds["chat-template"] = [chatML, gemma, llama3].map { Array($0.utf8) }
        seeds["whisper-tokenizer"] = [Array(whisperTokenizer.utf8)]
        seeds["wordpiece"] = [Array("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n##lo\nworld\n,\n!\n".utf8), Array(wordPieceJSON.utf8)]
        seeds["piper-config"] = [Array(piperConfig.utf8)]
        seeds["calculator"] = ["2 + 2 * 3", "sqrt(16) / (1 - 0.5) ^ 2", "-(3 % 2) + pi * e", "1e308 * 10"].map { Array($0.utf8) }
        seeds["http"] = [
            "GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
            "POST /v1/chat/completions HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
            "POST /v1/embeddings HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n2;x=y\r\n{}\r\n0\r\nT: v\r\n\r\n"
                + "GET /v1/models?x=1 HTTP/1.0\r\n\r\n",
        ].map { Array($0.utf8) }
        let form = "--XyZ\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper\r\n--XyZ\r\n"
            + "Content-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\nRIFF\r\n--XyZ--\r\n"
        seeds["multipart"] = [Array("multipart/form-data; boundary=\"XyZ\"".utf8) + [0] + Array(form.utf8)]
        let journal = IndexJournal.example()
        seeds["index-journal"] = [[1] + journal, [0] + Array(journal.dropFirst(IndexJournal.headerSize))]
        return seeds
    }

    static let chatML = "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
        + "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
    static let gemma = "{{ bos_token }}{% for m in messages %}{% if m.role == 'system' %}{% set r = 'user' %}{% else %}"
        + "{% set r = m.role %}{% endif %}<start_of_turn>{{ r | replace('assistant', 'model') }}\n{{ m.content | trim }}"
        + "<end_of_turn>\n{% endfor %}{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
    static let llama3 = "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = "
        + "'<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + message['content'] | trim + '<|eot_id|>' %}"
        + "{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}"
        + "{% if tools %}{% for t in tools %}{{ t | tojson(indent=2) }}{% endfor %}{% endif %}"
        + "{% for m in messages if m.tool_calls %}{% for c in m.tool_calls %}{{ c.function.name }}{{ c.function.arguments | tojson }}"
        + "{% endfor %}{% endfor %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' if add_generation_prompt }}"

    static let schemas: [(schema: String, document: String)] = [
        (#"{"type":"object","properties":{"name":{"type":"string","maxLength":8},"age":{"type":"integer"}},"required":["name"]}"#,
         #"{"name":"Ada","age":36}"#),
        (#"{"type":"array","items":{"enum":["a","b",3]},"minItems":1,"maxItems":3}"#, #"["a",3]"#),
        (#"{"anyOf":[{"type":"number"},{"type":"boolean"},{"type":"null"}]}"#, "-1.5"),
        (#"{"type":"object","properties":{"kind":{"const":"x"},"v":{"type":["string","null"]}},"required":["kind","v"],"additionalProperties":false}"#,
         #"{"kind":"x","v":null}"#),
        // Bounds, patterns and formats: digit and character automata.
        (#"{"type":"object","properties":{"n":{"type":"integer","minimum":-7,"exclusiveMaximum":120},"p":{"type":"number","exclusiveMinimum":0,"maximum":1},"c":{"type":"string","pattern":"^[A-Z]{2}-\\d{3,4}(x|y)?$","maxLength":9},"d":{"type":"string","format":"date-time"}},"required":["n","p","c","d"]}"#,
         #"{"n":-7,"p":0.25,"c":"AB-123x","d":"2024-02-29T12:00:00Z"}"#),
        (#"{"type":"array","items":{"anyOf":[{"type":"string","format":"email"},{"type":"integer","minimum":1}]},"maxItems":3}"#,
         #"["a@b.co",3]"#),
        (#"{"type":"string","format":"uuid"}"#, #""123e4567-e89b-12d3-a456-426614174000""#),
        (#"{"type":"array","items":{"type":"string","format":"uri","pattern":"[^\\s\"]\\.(com|org)","minLength":10}}"#, #"["https://a.org"]"#),
        // References, recursion, allOf.
        (##"{"$ref":"#/$defs/N","$defs":{"N":{"type":"object","properties":{"v":{"type":"integer","minimum":0},"kids":{"type":"array","items":{"$ref":"#/$defs/N"},"maxItems":2}},"required":["v"]}}}"##,
         #"{"v":1,"kids":[{"v":2,"kids":[]}]}"#),
        (##"{"oneOf":[{"type":"null"},{"type":"object","properties":{"x":{"$ref":"#"},"op":{"const":"neg"}},"required":["op","x"]}]}"##, #"{"x":{"x":null,"op":"neg"},"op":"neg"}"#),
        (##"{"allOf":[{"$ref":"#/definitions/B"},{"properties":{"b":{"maximum":9}},"required":["b"]}],"definitions":{"B":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer","minimum":1}},"additionalProperties":false}}}"##,
         #"{"a":"x","b":3}"#),
        // Extra members, member counts, tuples, literals of every type, any value.
        (#"{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"],"additionalProperties":{"type":"boolean"},"minProperties":2,"maxProperties":3}"#,
         #"{"id":1,"flag":true}"#),
        (#"{"type":"array","prefixItems":[{"enum":[{"a":[1,null]},[true],2.5,null]},{"const":"x"}],"items":{},"minItems":1,"maxItems":4}"#,
         #"[{"a":[1,null]},"x",{"k":[1]}]"#),
    ]

    static let whisperTokenizer = #"""
    {"model":{"type":"BPE","vocab":{"!":0,"H":1,"e":2,"l":3,"o":4,"Ġ":5,"He":6,"ll":7,"Ġw":8,"or":9,"d":10,"w":11,"r":12,",":13},
    "merges":["H e","l l","Ġ w","o r"]},
    "added_tokens":[{"id":50,"content":"<|endoftext|>","special":true},{"id":51,"content":"<|startoftranscript|>","special":true},
    {"id":52,"content":"<|en|>","special":true},{"id":53,"content":"<|translate|>","special":true},
    {"id":54,"content":"<|transcribe|>","special":true},{"id":55,"content":"<|startoflm|>","special":true},
    {"id":56,"content":"<|startofprev|>","special":true},{"id":57,"content":"<|nospeech|>","special":true},
    {"id":58,"content":"<|notimestamps|>","special":true}]}
    """#

    static let wordPieceJSON = #"""
    {"normalizer":{"type":"BertNormalizer","lowercase":true,"strip_accents":null},"model":{"type":"WordPiece",
    "unk_token":"[UNK]","continuing_subword_prefix":"##","max_input_chars_per_word":100,
    "vocab":{"[PAD]":0,"[UNK]":1,"[CLS]":2,"[SEP]":3,"hello":4,"##lo":5,"world":6,",":7,"!":8,"un":9,"##aff":10,"##able":11}}}
    """#

    static let piperConfig = #"""
    {"audio":{"sample_rate":22050},"espeak":{"voice":"en-us"},"inference":{"noise_scale":0.667,"length_scale":1,"noise_w":0.8},
    "phoneme_type":"espeak","phoneme_id_map":{"_":[0],"^":[1],"$":[2]," ":[3],"h":[20],"ə":[59],"l":[24],"ˈ":[120],"o":[27],
    "ʊ":[100],"w":[35],"ɜ":[62],"ː":[122],"d":[17]},"num_symbols":256,"num_speakers":1,"speaker_id_map":{}}
    """#

    /// A header (little-endian length, JSON) and the tensors it lays out.
    static func safetensors() -> [UInt8] {
        let header = #"{"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"b":{"dtype":"F16","shape":[2],"data_offsets":[16,20]}}"#
        var out = withUnsafeBytes(of: UInt64(header.utf8.count).littleEndian) { Array($0) }
        out += Array(header.utf8)
        out += [UInt8](repeating: 0x3F, count: 20)
        return out
    }

    /// A protobuf ModelProto: ir_version, a graph with one node and two initializers (raw and float_data).
    static func onnx() -> [UInt8] {
        func varint(_ v: UInt64) -> [UInt8] {
            var v = v, out: [UInt8] = []
            repeat { out.append(UInt8(v & 0x7F) | (v > 0x7F ? 0x80 : 0)); v >>= 7 } while v > 0
            return out
        }
        func field(_ number: UInt64, _ bytes: [UInt8]) -> [UInt8] { varint(number << 3 | 2) + varint(UInt64(bytes.count)) + bytes }
        func number(_ n: UInt64, _ v: UInt64) -> [UInt8] { varint(n << 3) + varint(v) }
        let node = field(1, Array("x".utf8)) + field(1, Array("w".utf8)) + field(2, Array("y".utf8)) + field(4, Array("MatMul".utf8))
        let raw = number(1, 2) + number(1, 2) + number(2, 1) + field(8, Array("w".utf8)) + field(9, [UInt8](repeating: 0, count: 16))
        let floats = number(1, 2) + number(2, 1) + field(4, [0, 0, 128, 63, 0, 0, 0, 64]) + field(8, Array("b".utf8))
        let graph = field(1, node) + field(5, raw) + field(5, floats) + field(2, Array("g".utf8))
        return number(1, 8) + field(7, graph)
    }

    /// A legacy (pre-zip) torch.save stream: magic number, protocol, sys info, a state dict of one
    /// tensor, the storage keys and the storage bytes.
    static func legacyPickle() -> [UInt8] {
        var out: [UInt8] = []
        func pickle(_ ops: [UInt8]) { out += [0x80, 2] + ops + [0x2E] }  // PROTO 2 ... STOP
        func long(_ v: Int) -> [UInt8] { [0x4A] + withUnsafeBytes(of: Int32(v).littleEndian) { Array($0) } }  // BININT
        func unicode(_ s: String) -> [UInt8] {
            [0x58] + withUnsafeBytes(of: UInt32(s.utf8.count).littleEndian) { Array($0) } + Array(s.utf8)
        }
        pickle([0x8A, 0x0A] + [0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19])  // LONG1 magic
        pickle(long(1001))
        pickle([0x7D] + unicode("little_endian") + [0x88, 0x73])  // {'little_endian': True}: sys info
        // {'w': _rebuild_tensor_v2(persistent_load(('storage', FloatStorage, '0', 'cpu', 4)), 0, (2, 2), (2, 1), False, {})}
        var state: [UInt8] = [0x7D] + unicode("w")
        state += [0x63] + Array("torch._utils\n_rebuild_tensor_v2\n".utf8)
        // MARK (the arguments), MARK (the persistent id)
        state += [0x28, 0x28] + unicode("storage") + [0x63] + Array("torch\nFloatStorage\n".utf8) + unicode("0") + unicode("cpu")
            + long(4) + [0x74]
        state += [0x51]  // BINPERSID
        state += long(0) + [0x28] + long(2) + long(2) + [0x74] + [0x28] + long(2) + long(1) + [0x74] + [0x89] + [0x7D] + [0x74]
        state += [0x52, 0x73]  // REDUCE, SETITEM
        pickle(state)
        pickle([0x5D] + unicode("0") + [0x61])  // ['0']
        out += withUnsafeBytes(of: Int64(4).littleEndian) { Array($0) } + [UInt8](repeating: 0, count: 16)
        return out
    }

    /// CTranslate2 model.bin, version 6: spec, two variables (float32 and int8) and an alias.
    /// ADD with a FLOAT16 constant, then CONV_2D with its options and an omitted bias.
    static func tflite() -> [UInt8] {
        var w = TFLiteWriter()
        let add = w.addOpcode(0), conv = w.addOpcode(3)
        let half = w.addBuffer(halves: [0.5, -1]), kernel = w.addBuffer(floats: [2, 3])
        let x = w.addTensor(.init(name: "x", shape: [1, 2, 2, 2]))
        let c = w.addTensor(.init(name: "c", shape: [2], type: 1, buffer: half))
        let y = w.addTensor(.init(name: "y", shape: [1, 2, 2, 2]))
        let k = w.addTensor(.init(name: "k", shape: [1, 1, 1, 2], buffer: kernel))
        let z = w.addTensor(.init(name: "z", shape: [1, 2, 2, 1]))
        w.inputs = [x]
        w.outputs = [z]
        w.operators = [
            .init(opcodeIndex: add, inputs: [x, c], outputs: [y], optionsType: 11, options: [.int8(1)]),
            .init(opcodeIndex: conv, inputs: [y, k, -1], outputs: [z], optionsType: 1, options: [.int8(0), .int32(1), .int32(1), .int8(0)]),
        ]
        return w.bytes()
    }

    static func ctranslate2() -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: UInt32) { out += withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        func short(_ s: String) {
            let b = Array(s.utf8) + [0]
            out += withUnsafeBytes(of: UInt16(b.count).littleEndian) { Array($0) } + b
        }
        u32(6); short("WhisperSpec"); u32(3); u32(2)
        short("encoder/conv1/weight"); out.append(2); u32(2); u32(2); out.append(0); u32(16); out += [UInt8](repeating: 1, count: 16)
        short("decoder/scale"); out.append(0); out.append(1); u32(1); out.append(5)
        u32(1); short("decoder/alias"); short("decoder/scale")
        return out
    }
}
