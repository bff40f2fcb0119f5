/// A run of rendered text with one origin. A render is a sequence of segments in output order;
/// adjacent segments always differ in origin.
package struct JinjaSegment: Sendable, Equatable, Hashable {
    /// The text of the run.
    package var text: String
    /// Whether the template or the data wrote it.
    package var origin: JinjaOrigin

    /// A segment of `text` from `origin`.
    package init(text: String, origin: JinjaOrigin) {
        self.text = text
        self.origin = origin
    }
}
