/// Where a piece of rendered text came from. The caller tokenizes `.template` text with special
/// tokens recognised (the template's own `<|im_start|>` markers) and `.data` text with special
/// tokens treated as plain text, so a user message cannot forge a control token.
///
/// Origins follow the text through the template scalar by scalar: in
/// `'<|im_start|>' + message['role'] + '\n' + message['content']` the markers and the newline
/// are `.template` and role and content are `.data`. Slicing, splitting, stripping, replacing,
/// joining, case mapping, `format`/`%` and macro or `{% set %}` capture keep each part's
/// origin; a transformation that changes a mixed string's length in a way positions cannot
/// follow makes the result `.data`.
package enum JinjaOrigin: Sendable, Equatable, Hashable {
    /// Written by the template author: text between tags, string literals in expressions, and
    /// the context variables the caller marks trusted (`JinjaContext.trustedNames`, e.g.
    /// `bos_token`).
    case template
    /// Everything else: strings from the render context (messages, tools, …) and text
    /// computed from non-string values (numbers, `tojson`, reprs of lists and dicts), which
    /// the template author did not write literally.
    case data
}
