import CLISupport
import Foundation
import OnDevice

/// `ondevice tokenize`: token ids of a text, BOS as the model's metadata says, special-token
/// text (such as `<|im_start|>`) parsed as the special token.
enum TokenizeCommand {
    static func run(_ args: ArraySlice<String>) async throws {
        let a = try Arguments(args, options: ["model"], flags: ["json", "no-special"])
        guard let text = a.positionals.first else { throw CLIError.missingArgument("TEXT") }
        let ai = OnDeviceAI(configuration: try TextOpCommand.configuration(a))
        let model = ai.textModel(try await ModelLocator.reference(for: try a.require("model")))
        let ids = try await model.tokenize(readTextArgument(text), parseSpecialTokens: !a.has("no-special"))
        if a.has("json") {
            try printJSON(["ids": ids.map(Int.init)])
        } else {
            print(ids.map(String.init).joined(separator: " "))
        }
    }
}
