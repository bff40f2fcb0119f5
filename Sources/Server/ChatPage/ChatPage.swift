import Foundation

/// The chat page at `/`: one self-contained HTML document (inline style and script, nothing
/// fetched from elsewhere) that talks to this server's own OpenAI endpoints — pick a model, chat
/// with streaming and Stop, a system prompt, transcribe an uploaded audio file, hear a reply.
///
/// The page holds no data, so it is served without the API key; its requests carry the key the
/// user types when the server answers 401 (kept in the browser's localStorage). Model output is
/// only ever set as text (`textContent`), so a reply cannot inject markup.
enum ChatPage {
    /// The whole document, built once. Markup, style and script live in their own files
    /// (`ChatPage+Markup.swift`, `+Style`, `+Script`) so each stays readable.
    static let document: [UInt8] = Array("""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>OnDevice chat</title>
        <style>
        \(style)
        </style>
        </head>
        <body>
        \(markup)
        <script>
        \(script)
        </script>
        </body>
        </html>

        """.utf8)

    /// Nothing but this origin: inline style and script are the page's own (there is no other
    /// script to inject into), audio plays from `blob:` URLs made from `/v1/audio/speech`.
    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'unsafe-inline'", "style-src 'unsafe-inline'", "connect-src 'self'",
        "media-src 'self' blob:", "img-src 'self' data:", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    static let headers: [(String, String)] = [
        ("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"), ("Cache-Control", "no-cache"),
    ]

    /// Whether `GET /` should get the page: browsers ask for HTML; Ollama clients and `curl`
    /// probing the root (`Accept: */*` or none) keep getting the one-line banner.
    static func isWanted(by request: HTTPRequest) -> Bool {
        request.headerValues("accept").contains { $0.lowercased().contains("text/html") }
    }

    static func send(_ responder: HTTPResponder) {
        responder.send(status: 200, contentType: "text/html; charset=utf-8", body: document, headers: headers)
    }
}
