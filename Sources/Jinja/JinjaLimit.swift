/// The resource bound a render hit (see `JinjaLimits`).
package enum JinjaLimit: Sendable, Equatable, Hashable {
    /// More loop iterations in one render than `JinjaLimits.maxLoopIterations`.
    case loopIterations(Int)
    /// Macro calls nested deeper than `JinjaLimits.maxCallDepth`.
    case callDepth(Int)
    /// Brackets, operators or blocks nested deeper than `JinjaLimits.maxNestingDepth`.
    case nestingDepth(Int)
    /// A string, list or the output grew past `JinjaLimits.maxOutputLength` scalars or items.
    case outputLength(Int)
    /// A value nested deeper than `JinjaLimits.maxValueDepth`.
    case valueDepth(Int)
}
