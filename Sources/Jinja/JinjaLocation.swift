/// A position in a template's source: 1-based line and column (in Unicode scalars, after
/// newlines are normalised to `\n` the way jinja2 does).
package struct JinjaLocation: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// 1-based line.
    package var line: Int
    /// 1-based column, counted in Unicode scalars.
    package var column: Int

    /// A location at `line`, `column`.
    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`.
    package var description: String { "\(line):\(column)" }
}
