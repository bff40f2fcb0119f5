/// A chat prompt as its template rendered it: the text, and which byte ranges of it the
/// template wrote itself. Only those ranges may hold control tokens (`Tokenizer.encode(_:)`);
/// everything else came from messages, documents or tools and is data.
package struct RenderedPrompt: Sendable, Equatable {
    /// The whole rendered text.
    package var text: String
    /// UTF-8 byte ranges of `text` written by the template, ascending and disjoint.
    package var trusted: [Range<Int>]

    package init(text: String, trusted: [Range<Int>]) {
        self.text = text
        self.trusted = trusted
    }

    /// A prompt the caller wrote whole (a raw prompt): all of it is trusted.
    package init(trustedText text: String) {
        self.init(text: text, trusted: [0..<text.utf8.count])
    }
}
