extension ChatPage {
    /// The page's style: system fonts only, light and dark from `prefers-color-scheme`, one
    /// column that fits a phone (nothing is wider than the viewport).
    static let style = #"""
        :root {
          color-scheme: light dark;
          --bg: #f7f7f8; --panel: #ffffff; --text: #1b1b1f; --muted: #5c5f66; --border: #d4d6db;
          --user: #e3ecff; --assistant: #ffffff; --accent: #2357d9; --accent-text: #ffffff; --error: #b3261e;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #16171a; --panel: #1f2024; --text: #e8e8ec; --muted: #a2a5ad; --border: #3a3c43;
            --user: #24324f; --assistant: #1f2024; --accent: #7aa2ff; --accent-text: #0d1220; --error: #ff8a80;
          }
        }
        * { box-sizing: border-box; }
        html, body { height: 100%; }
        body {
          margin: 0 auto; max-width: 860px; padding: 0.75rem; display: flex; flex-direction: column; gap: 0.5rem;
          background: var(--bg); color: var(--text);
          font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif;
        }
        header { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; }
        h1 { font-size: 1.15rem; margin: 0 auto 0 0; }
        .picker { display: flex; align-items: center; gap: 0.4rem; min-width: 0; }
        .picker select { min-width: 0; flex: 1; }
        @media (max-width: 520px) {
          h1 { flex: 1; }
          .picker { order: 3; flex: 1 1 100%; }
          .row input { width: 5.5rem; }
        }
        label { display: block; font-size: 0.85rem; color: var(--muted); }
        label.inline { display: inline; }
        select, input, textarea, button {
          font: inherit; color: inherit; background: var(--panel); border: 1px solid var(--border); border-radius: 6px;
          padding: 0.35rem 0.5rem; max-width: 100%;
        }
        select { min-width: 0; }
        textarea { width: 100%; resize: vertical; }
        button { cursor: pointer; }
        button[type="submit"], #send { background: var(--accent); color: var(--accent-text); border-color: var(--accent); }
        button:disabled, select:disabled, input:disabled { opacity: 0.5; cursor: default; }
        :focus-visible, .file-input:focus-visible + label { outline: 2px solid var(--accent); outline-offset: 2px; }
        details { background: var(--panel); border: 1px solid var(--border); border-radius: 8px; padding: 0.4rem 0.75rem; }
        summary { cursor: pointer; color: var(--muted); }
        details[open] summary { margin-bottom: 0.4rem; }
        .row { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; margin-top: 0.4rem; }
        .row input { width: 7rem; }
        #key-form { background: var(--panel); border: 1px solid var(--error); border-radius: 8px; padding: 0.5rem 0.75rem; }
        #key-form p { margin: 0 0 0.4rem; }
        #log { flex: 1; overflow-y: auto; min-height: 8rem; display: flex; flex-direction: column; gap: 0.5rem; }
        .message { border: 1px solid var(--border); border-radius: 8px; padding: 0.5rem 0.75rem; background: var(--assistant); }
        .message.user { background: var(--user); align-self: flex-end; max-width: 90%; }
        .message h2 { font-size: 0.8rem; margin: 0 0 0.2rem; color: var(--muted); font-weight: 600; }
        .message .text { white-space: pre-wrap; overflow-wrap: anywhere; }
        .message[data-state="streaming"] .text::after { content: "▍"; color: var(--muted); }
        .message .note, #status { font-size: 0.85rem; color: var(--muted); margin: 0.2rem 0 0; }
        .message .note:empty, #status:empty { display: none; }
        .message .speak { margin-top: 0.35rem; font-size: 0.85rem; padding: 0.15rem 0.6rem; }
        .error, .message .note.error, #status.error { color: var(--error); }
        #composer { display: flex; flex-direction: column; gap: 0.4rem; }
        .actions { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; }
        .grow { flex: 1; }
        .file {
          display: inline-block; font-size: 1rem; color: inherit; border: 1px solid var(--border); border-radius: 6px;
          padding: 0.35rem 0.6rem; background: var(--panel); cursor: pointer;
        }
        .file-input:disabled + .file { opacity: 0.5; cursor: default; }
        .file-input, .hidden-label {
          position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap;
        }
        audio { width: 100%; }
        audio[hidden] { display: none; }
        """#
}
