/// Bounds on one render, so a hostile or buggy template cannot loop, recurse or allocate
/// without end. jinja2 itself has no such bounds (beyond the sandbox's `range` cap and
/// Python's recursion limit); real chat templates stay far below these.
package struct JinjaLimits: Sendable, Equatable {
    /// Total `for` iterations across the whole render.
    package var maxLoopIterations: Int
    /// Macro calls nested inside each other (recursion depth).
    package var maxCallDepth: Int
    /// Nesting of brackets, operators and blocks while parsing.
    package var maxNestingDepth: Int
    /// Unicode scalars written to output buffers during the render, and the length of any
    /// single string or list built by an operator or filter.
    package var maxOutputLength: Int
    /// Nesting of lists, tuples, dicts and namespaces built by the template
    /// (`{% set ns.x = [ns.x] %}` in a loop would otherwise nest without end).
    package var maxValueDepth: Int

    /// Bounds with room for any real chat template.
    package init(maxLoopIterations: Int = 1_000_000, maxCallDepth: Int = 64, maxNestingDepth: Int = 64,
                 maxOutputLength: Int = 16 << 20, maxValueDepth: Int = 128) {
        self.maxLoopIterations = maxLoopIterations
        self.maxCallDepth = maxCallDepth
        self.maxNestingDepth = maxNestingDepth
        self.maxOutputLength = maxOutputLength
        self.maxValueDepth = maxValueDepth
    }

    /// The defaults.
    package static let `default` = JinjaLimits()
}
