extension ChatPage {
    /// The page's body: a header with the model picker, collapsible settings (system prompt,
    /// sampling, speech models), the API-key form (shown on a 401), the conversation, and the
    /// composer. Every control has a label; ids are what the script and the browser test use.
    static let markup = #"""
        <header>
          <h1>OnDevice</h1>
          <span class="picker"><label class="inline" for="model">Model</label>
            <select id="model" disabled></select></span>
          <button id="new-chat" type="button">New chat</button>
        </header>
        <details id="settings">
          <summary>Settings</summary>
          <label for="system">System prompt</label>
          <textarea id="system" rows="2" placeholder="You are a helpful assistant."></textarea>
          <div class="row">
            <span><label for="temperature">Temperature</label>
              <input id="temperature" type="number" min="0" max="2" step="0.1" value="0.7"></span>
            <span><label for="max-tokens">Max tokens</label>
              <input id="max-tokens" type="number" min="1" max="32768" step="1" value="512"></span>
            <span><label for="asr-model">Transcription model</label>
              <select id="asr-model" disabled></select></span>
            <span><label for="tts-model">Voice</label>
              <select id="tts-model" disabled></select></span>
          </div>
        </details>
        <form id="key-form" hidden>
          <p>This server needs an API key (<code>ondevice serve --api-key</code>).
            It is kept in this browser only.</p>
          <label for="api-key">API key</label>
          <input id="api-key" type="password" autocomplete="off" spellcheck="false">
          <button type="submit">Use key</button>
        </form>
        <main id="log" role="log" aria-live="polite" aria-label="Conversation"></main>
        <p id="status" role="status"></p>
        <form id="composer">
          <label for="input" class="hidden-label">Message</label>
          <textarea id="input" rows="3" placeholder="Message (Enter sends, Shift+Enter adds a line)"></textarea>
          <div class="actions">
            <input id="audio-file" class="file-input" type="file" accept="audio/*" disabled>
            <label class="file" for="audio-file">Transcribe audio…</label>
            <span class="grow"></span>
            <button id="stop" type="button" disabled>Stop</button>
            <button id="send" type="submit" disabled>Send</button>
          </div>
        </form>
        <audio id="player" controls hidden aria-label="Spoken reply"></audio>
        """#
}
