extension ChatPage {
    /// The page's behaviour, plain JavaScript against this server's OpenAI endpoints.
    ///
    /// - The conversation is kept here (`history`) and sent whole with each request; the system
    ///   prompt goes first when set.
    /// - Replies stream from `/v1/chat/completions` as server-sent events read off the fetch
    ///   body; Stop aborts the fetch, and the server cancels generation when the client hangs up.
    /// - Each reply element carries `data-state` (streaming, done, stopped, error) so the state
    ///   is visible to styles, assistive tools and the browser test alike.
    static let script = #"""
        "use strict";
        const $ = (id) => document.getElementById(id);
        const ui = {
          model: $("model"), newChat: $("new-chat"), system: $("system"), temperature: $("temperature"),
          maxTokens: $("max-tokens"), asr: $("asr-model"), tts: $("tts-model"), keyForm: $("key-form"),
          key: $("api-key"), log: $("log"), status: $("status"), composer: $("composer"), input: $("input"),
          file: $("audio-file"), stop: $("stop"), send: $("send"), player: $("player"),
        };
        const saved = {
          get(name) { try { return localStorage.getItem("ondevice." + name); } catch (_) { return null; } },
          set(name, value) { try { localStorage.setItem("ondevice." + name, value); } catch (_) { /* private mode */ } },
        };
        let history = [];        // {role, content}, without the system prompt
        let controller = null;   // the running generation's AbortController
        let playerURL = null;    // the blob: URL the player holds

        // ---- requests -------------------------------------------------------------------
        class RequestError extends Error {
          constructor(status, message) { super(message); this.status = status; }
        }

        // fetch with the saved key; a non-2xx answer becomes a RequestError with the server's
        // own message ({"error": {"message": ...}}), and a 401 opens the key form.
        async function api(path, init = {}) {
          const headers = Object.assign({}, init.headers);
          const key = saved.get("apiKey");
          if (key) headers["Authorization"] = "Bearer " + key;
          const response = await fetch(path, Object.assign({}, init, { headers }));
          if (response.ok) return response;
          let message = "HTTP " + response.status;
          try {
            const body = await response.json();
            if (body && body.error && body.error.message) message = body.error.message;
          } catch (_) { /* not JSON */ }
          if (response.status === 401) askForKey();
          throw new RequestError(response.status, message);
        }

        function askForKey() {
          ui.keyForm.hidden = false;
          ui.key.focus();
        }

        function setStatus(text, isError = false) {
          ui.status.textContent = text;
          ui.status.classList.toggle("error", isError);
        }

        // ---- models ---------------------------------------------------------------------
        function fill(select, ids, name) {
          select.replaceChildren(...ids.map((id) => new Option(id, id)));
          const previous = saved.get(name);
          if (previous && ids.includes(previous)) select.value = previous;
          select.disabled = ids.length === 0;
        }

        async function loadModels() {
          setStatus("Loading models…");
          try {
            const list = await (await api("/v1/models")).json();
            const ids = (kind) => (list.data || []).filter((m) => m.kind === kind).map((m) => m.id);
            fill(ui.model, ids("llm"), "model");
            fill(ui.asr, ids("asr"), "asrModel");
            fill(ui.tts, ids("tts"), "ttsModel");
            ui.file.disabled = ui.asr.disabled;
            updateButtons();
            setStatus(ui.model.options.length ? "" : "No chat model is served: install one with `ondevice models pull`.",
                      !ui.model.options.length);
            document.body.dataset.models = "ready";
          } catch (error) {
            setStatus("Could not list models: " + error.message, true);
          }
        }

        // ---- conversation ---------------------------------------------------------------
        function addMessage(role, text) {
          const item = document.createElement("article");
          item.className = "message " + role;
          const who = document.createElement("h2");
          who.textContent = role === "user" ? "You" : "Assistant";
          const body = document.createElement("div");
          body.className = "text";
          body.textContent = text;     // text only: model output never becomes markup
          const note = document.createElement("p");
          note.className = "note";
          item.append(who, body, note);
          ui.log.append(item);
          scrollToEnd(true);
          return item;
        }

        // Follows the conversation unless the reader has scrolled back up.
        function atEnd() {
          const log = ui.log;
          return log.scrollHeight - log.scrollTop - log.clientHeight < 80;
        }

        function scrollToEnd(force) {
          if (force || atEnd()) ui.log.scrollTop = ui.log.scrollHeight;
        }

        function note(item, text, isError = false) {
          const element = item.querySelector(".note");
          element.textContent = text;
          element.classList.toggle("error", isError);
        }

        function updateButtons() {
          const busy = controller !== null;
          const noModel = ui.model.options.length === 0;
          ui.send.disabled = busy || noModel;
          ui.stop.disabled = !busy;
          ui.model.disabled = busy || noModel;
        }

        // Reads server-sent events off a fetch body, calling onData with each parsed `data:`
        // line until `[DONE]`; the body is read to its end so the connection can be reused.
        async function readEvents(response, onData) {
          const reader = response.body.getReader();
          const decoder = new TextDecoder();
          let buffer = "";
          let done = false;
          try {
            for (;;) {
              const chunk = await reader.read();
              if (chunk.done) break;
              buffer += decoder.decode(chunk.value, { stream: true });
              let end;
              while ((end = buffer.indexOf("\n")) >= 0) {
                const line = buffer.slice(0, end).replace(/\r$/, "");
                buffer = buffer.slice(end + 1);
                if (done || !line.startsWith("data:")) continue;
                const data = line.slice(5).trim();
                if (data === "[DONE]") { done = true; continue; }
                onData(JSON.parse(data));
              }
            }
          } catch (error) {
            reader.cancel().catch(() => {});
            throw error;
          }
        }

        async function send() {
          const text = ui.input.value.trim();
          if (!text || controller) return;
          if (!ui.model.value) { setStatus("Pick a model first.", true); return; }
          saved.set("model", ui.model.value);
          ui.input.value = "";
          history.push({ role: "user", content: text });
          addMessage("user", text);
          const reply = addMessage("assistant", "");
          reply.dataset.state = "streaming";
          const body = reply.querySelector(".text");

          const messages = [];
          const system = ui.system.value.trim();
          if (system) messages.push({ role: "system", content: system });
          messages.push(...history);
          const request = { model: ui.model.value, messages, stream: true };
          const temperature = parseFloat(ui.temperature.value);
          if (Number.isFinite(temperature)) request.temperature = temperature;
          const maxTokens = parseInt(ui.maxTokens.value, 10);
          if (Number.isFinite(maxTokens) && maxTokens > 0) request.max_tokens = maxTokens;

          controller = new AbortController();
          updateButtons();
          setStatus("");
          let content = "";
          let finish = null;
          try {
            const response = await api("/v1/chat/completions", {
              method: "POST", headers: { "Content-Type": "application/json" },
              body: JSON.stringify(request), signal: controller.signal,
            });
            await readEvents(response, (event) => {
              if (event.error) throw new RequestError(0, event.error.message || "generation failed");
              const choice = event.choices && event.choices[0];
              if (!choice) return;
              if (choice.delta && typeof choice.delta.content === "string" && choice.delta.content) {
                content += choice.delta.content;
                body.textContent = content;
                scrollToEnd(false);
              }
              if (choice.finish_reason) finish = choice.finish_reason;
            });
            reply.dataset.state = "done";
            if (finish === "length") note(reply, "Stopped at the token limit (Max tokens).");
          } catch (error) {
            if (error.name === "AbortError") {
              reply.dataset.state = "stopped";
              note(reply, "Stopped.");
            } else {
              reply.dataset.state = "error";
              note(reply, error.message, true);
            }
          } finally {
            controller = null;
            updateButtons();
          }
          if (content) {
            history.push({ role: "assistant", content });
            addSpeakButton(reply, content);
          } else {
            // Nothing came back: forget the turn, and give the text back to edit or retry.
            history.pop();
            if (!ui.input.value) ui.input.value = text;
            if (reply.dataset.state !== "error") reply.remove();
          }
          ui.input.focus();
        }

        function newChat() {
          if (controller) controller.abort();
          history = [];
          ui.log.replaceChildren();
          setStatus("");
          ui.input.focus();
        }

        // ---- audio ----------------------------------------------------------------------
        async function transcribe(file) {
          if (!file) return;
          if (!ui.asr.value) { setStatus("No transcription model is served.", true); return; }
          saved.set("asrModel", ui.asr.value);
          const form = new FormData();
          form.append("file", file, file.name);
          form.append("model", ui.asr.value);
          setStatus("Transcribing " + file.name + "…");
          document.body.dataset.transcribing = "1";
          try {
            const result = await (await api("/v1/audio/transcriptions", { method: "POST", body: form })).json();
            const text = (result.text || "").trim();
            ui.input.value = ui.input.value ? ui.input.value.replace(/\s*$/, " ") + text : text;
            setStatus(text ? "" : "No speech was heard in " + file.name + ".", !text);
            ui.input.focus();
          } catch (error) {
            setStatus("Transcription failed: " + error.message, true);
          } finally {
            delete document.body.dataset.transcribing;
            ui.file.value = "";
          }
        }

        // The server streams WAV before it knows the length, so the header says "to the end";
        // writing the real sizes lets the player show the duration and seek.
        function withWAVSizes(bytes) {
          const view = new DataView(bytes);
          const tag = (at) => String.fromCharCode(...new Uint8Array(bytes, at, 4));
          if (bytes.byteLength < 44 || tag(0) !== "RIFF" || tag(8) !== "WAVE") return bytes;
          view.setUint32(4, bytes.byteLength - 8, true);
          for (let at = 12; at + 8 <= bytes.byteLength; ) {
            const size = view.getUint32(at + 4, true);
            if (tag(at) === "data") { view.setUint32(at + 4, bytes.byteLength - at - 8, true); break; }
            at += 8 + size + (size & 1);
          }
          return bytes;
        }

        function addSpeakButton(reply, text) {
          const button = document.createElement("button");
          button.type = "button";
          button.className = "speak";
          button.textContent = "Speak";
          button.setAttribute("aria-label", "Speak this reply");
          button.disabled = ui.tts.disabled;
          button.addEventListener("click", () => speak(reply, button, text));
          reply.append(button);
        }

        async function speak(reply, button, text) {
          if (!ui.tts.value) return;
          saved.set("ttsModel", ui.tts.value);
          button.disabled = true;
          button.textContent = "Speaking…";
          note(reply, "");
          try {
            const response = await api("/v1/audio/speech", {
              method: "POST", headers: { "Content-Type": "application/json" },
              body: JSON.stringify({ model: ui.tts.value, input: text, response_format: "wav" }),
            });
            const audio = new Blob([withWAVSizes(await response.arrayBuffer())], { type: "audio/wav" });
            if (playerURL) URL.revokeObjectURL(playerURL);
            playerURL = URL.createObjectURL(audio);
            ui.player.src = playerURL;
            const following = atEnd();
            ui.player.hidden = false;   // shrinks the log: keep its end in view
            if (following) scrollToEnd(true);
            // A browser may refuse to play without a gesture it counts; the controls remain.
            await ui.player.play().catch(() => {});
          } catch (error) {
            note(reply, "Speech failed: " + error.message, true);
          } finally {
            button.disabled = false;
            button.textContent = "Speak";
          }
        }

        // ---- wiring ---------------------------------------------------------------------
        ui.composer.addEventListener("submit", (event) => { event.preventDefault(); send(); });
        ui.input.addEventListener("keydown", (event) => {
          if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            send();
          }
        });
        ui.stop.addEventListener("click", () => { if (controller) controller.abort(); });
        ui.newChat.addEventListener("click", newChat);
        ui.model.addEventListener("change", () => saved.set("model", ui.model.value));
        ui.file.addEventListener("change", () => transcribe(ui.file.files[0]));
        ui.keyForm.addEventListener("submit", (event) => {
          event.preventDefault();
          saved.set("apiKey", ui.key.value.trim());
          ui.keyForm.hidden = true;
          loadModels();
        });
        ui.system.value = saved.get("system") || "";
        ui.system.addEventListener("change", () => saved.set("system", ui.system.value));
        loadModels();
        """#
}
