/// A lexical token of a template: literal text, tag delimiters, and the expression tokens
/// inside tags (jinja2's lexer token types, with keywords left as names).
struct Token: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// Template text between tags (after whitespace control).
        case text(String)
        /// `{{`.
        case variableBegin
        /// `}}`.
        case variableEnd
        /// `{%`.
        case blockBegin
        /// `%}`.
        case blockEnd
        /// An identifier, keywords included (`if`, `in`, `not`, …).
        case name(String)
        /// A string literal, escapes decoded.
        case string(String)
        /// An integer literal.
        case integer(Int)
        /// A float literal.
        case float(Double)
        /// An operator or punctuation: `+ - * / // % ** ~ ( ) [ ] { } == != < <= > >= = . : | , ;`.
        case op(String)
        /// End of the template.
        case eof
    }

    var kind: Kind
    var location: JinjaLocation

    /// How jinja2 names the token in syntax errors.
    var description: String {
        switch kind {
        case .text: return "template data"
        case .variableBegin: return "begin of print statement"
        case .variableEnd: return "end of print statement"
        case .blockBegin: return "begin of statement block"
        case .blockEnd: return "end of statement block"
        case .name(let n): return n
        case .string(let s): return "'\(s)'"
        case .integer(let i): return String(i)
        case .float(let d): return String(d)
        case .op(let o): return o
        case .eof: return "end of template"
        }
    }
}
