import Foundation

/// The words of a grounded answer's prompt: the instruction, and one user turn with the numbered
/// passages and the question. The passages are message content, so the chat core tokenizes
/// them as text: a passage can never become a control token.
package enum RAGPrompt {
    package static let instructions = "You answer questions using only the numbered context passages. "
        + "Cite the passages you use like [1]. If the passages do not contain the answer, say that you do not know."

    /// The user turn: each passage as `[n] (file name) text`, then the question.
    package static func userMessage(question: String, passages: [(number: Int, text: String, metadata: [String: String])]) -> String {
        guard !passages.isEmpty else { return "There are no passages.\n\nQuestion: \(question)" }
        var context = ""
        for p in passages {
            let source = p.metadata["path"].map { " (\(($0 as NSString).lastPathComponent))" } ?? ""
            context += "[\(p.number)]\(source) \(p.text.trimmingCharacters(in: .whitespacesAndNewlines))\n\n"
        }
        return "Passages:\n\n\(context)Question: \(question)"
    }
}
