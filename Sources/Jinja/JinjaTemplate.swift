/// A parsed chat template, rendered the way Hugging Face transformers renders
/// `tokenizer.chat_template`: jinja2's `ImmutableSandboxedEnvironment(trim_blocks=True,
/// lstrip_blocks=True)` with the loopcontrols extension, the `{% generation %}` tag, and the
/// globals `raise_exception` and `strftime_now` and the `tojson` filter transformers adds.
///
///     let template = try JinjaTemplate(chatTemplateText)
///     let context = JinjaContext(messages: [["role": "user", "content": "Hi"]],
///                                addGenerationPrompt: true, bosToken: "<s>")
///     for segment in try template.segments(context) {
///         // .template text: tokenize with special tokens; .data text: as plain text
///     }
///
/// Parsing and rendering never crash on hostile input: errors are typed `JinjaError`s
/// naming the construct and its line and column, and loops, recursion and output are
/// bounded by `JinjaLimits`.
///
/// Held to jinja2 3.1.6 by `Tests/JinjaTests/Fixtures/jinja-references.jsonl` (written by
/// `scripts/make-jinja-references.py`). Deliberately not modelled: markupsafe's `Markup`
/// (`safe` and `escape` return plain strings), integers beyond 64 bits, complex numbers,
/// dict keys that are not strings, `include`/`extends`/`import`/`block`, recursive loops,
/// `cycler`/`joiner`/`lipsum`, and the `groupby`, `slice`, `random`, `pprint`, `urlize`,
/// `urlencode`, `striptags`, `wordwrap`, `xmlattr` and `filesizeformat` filters.
package struct JinjaTemplate: Sendable {
    /// The template text as given.
    package let source: String
    /// The bounds every render of this template runs under.
    package let limits: JinjaLimits
    let nodes: [Node]
    let undefinedLocals: [ScopeAnalysis.FrameKey: [String]]

    /// Parses `source`; throws `.syntax`, `.unsupported`, `.unknownFilter`/`.unknownTest`
    /// (outside `if` blocks, as jinja2 checks those at compile time) or `.limitExceeded`.
    package init(_ source: String, trimBlocks: Bool = true, lstripBlocks: Bool = true,
                 limits: JinjaLimits = .default) throws(JinjaError) {
        self.source = source
        self.limits = limits
        let tokens = try Lexer.tokenize(source, trimBlocks: trimBlocks, lstripBlocks: lstripBlocks)
        nodes = try Parser.parse(tokens, maxDepth: limits.maxNestingDepth)
        try TemplateValidator.validate(nodes)
        undefinedLocals = ScopeAnalysis.undefinedLocals(nodes)
    }

    /// Renders with `context`, as segments marked by origin (adjacent segments differ in
    /// origin). `now` is what `strftime_now` formats.
    package func segments(_ context: JinjaContext = JinjaContext(), now: JinjaDateTime = .now()) throws(JinjaError) -> [JinjaSegment] {
        try Renderer(limits: limits, now: now, undefinedLocals: undefinedLocals).run(nodes, context: context).segments
    }

    /// Renders with `context` to plain text (what jinja2's `render` returns).
    package func render(_ context: JinjaContext = JinjaContext(), now: JinjaDateTime = .now()) throws(JinjaError) -> String {
        try Renderer(limits: limits, now: now, undefinedLocals: undefinedLocals).run(nodes, context: context).text
    }
}
