#!/usr/bin/env python3
"""Drives the chat page (`GET /` of `ondevice serve`) in headless Chromium through chromedriver,
speaking WebDriver (W3C, JSON over HTTP) with the standard library only.

Usage: chat_page_check.py BASE_URL API_KEY WAV_PATH

The server must have API_KEY set: the page is fetched without it, asks for it on the first 401,
and then lists the models. Each step prints `ok <name>` or `FAIL <name>: <why>`; the last line
is `<n> passed, <m> failed`, and the screenshots' paths are printed as `screenshot <path>`.
A missing chromium or chromedriver is a failure (exit status 1), never a skip.
"""
import base64, json, os, shutil, socket, subprocess, sys, tempfile, time, traceback, urllib.error, urllib.request

CHAT_MODEL = "smollm2-135m-instruct-q4_1"
ENTER, SHIFT, RELEASE = "\ue007", "\ue008", "\ue000"
NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class WebDriverError(Exception):
    pass


class Browser:
    """One chromedriver process and one headless Chromium session."""

    def __init__(self, chromium, chromedriver, profile):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.driver = subprocess.Popen([chromedriver, f"--port={port}"], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.time() + 30
        while True:
            try:
                if self.call("GET", "/status")["ready"]:
                    break
            except (OSError, WebDriverError):
                pass
            if time.time() > deadline:
                raise WebDriverError("chromedriver did not start within 30 s")
            time.sleep(0.1)
        args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1000,900", "--autoplay-policy=no-user-gesture-required", "--mute-audio",
                f"--user-data-dir={profile}"]
        caps = {"browserName": "chrome", "goog:loggingPrefs": {"browser": "ALL"},
                "goog:chromeOptions": {"binary": chromium, "args": args}}
        self.session = self.call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})["sessionId"]
        self.base = f"/session/{self.session}"

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with NO_PROXY.open(request, timeout=180) as response:
                return json.load(response)["value"]
        except urllib.error.HTTPError as error:
            value = json.load(error).get("value", {})
            raise WebDriverError(f"{value.get('error')}: {value.get('message', '')[:300]}") from None

    def session_call(self, method, path, body=None):
        return self.call(method, self.base + path, body)

    def go(self, url):
        self.session_call("POST", "/url", {"url": url})

    def find(self, css):
        # A web element is an object with one member, its reference (under the W3C's key).
        found = self.session_call("POST", "/element", {"using": "css selector", "value": css})
        return next(iter(found.values()))

    def click(self, css):
        self.session_call("POST", f"/element/{self.find(css)}/click", {})

    def type(self, css, text, clear=False):
        element = self.find(css)
        if clear:
            self.session_call("POST", f"/element/{element}/clear", {})
        self.session_call("POST", f"/element/{element}/value", {"text": text})

    def js(self, script, *args):
        return self.session_call("POST", "/execute/sync", {"script": script, "args": list(args)})

    def wait(self, expression, timeout, what):
        """Polls a JavaScript expression until it is truthy; returns its value."""
        deadline = time.time() + timeout
        while True:
            value = self.js(f"return ({expression});")
            if value:
                return value
            if time.time() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")
            time.sleep(0.05)

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.session_call("GET", "/screenshot")))

    def resize(self, width, height):
        self.session_call("POST", "/window/rect", {"width": width, "height": height})

    def console(self):
        try:
            return self.session_call("POST", "/se/log", {"type": "browser"})
        except WebDriverError:
            return []

    def close(self):
        try:
            self.call("DELETE", self.base)
        except Exception:
            pass
        self.driver.terminate()
        try:
            self.driver.wait(10)
        except subprocess.TimeoutExpired:
            self.driver.kill()


LAST_REPLY = "document.querySelector('#log .message.assistant:last-of-type')"
REPLY_STATE = f"(() => {{ const r = {LAST_REPLY}; return r ? [r.dataset.state, r.querySelector('.text').textContent.length] : null; }})()"


def check_png(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width > 0 and height > 0 and len(data) > 1000, f"{path}: {width}x{height}, {len(data)} bytes"
    return f"{width}x{height}, {len(data)} bytes"


def main():
    base_url, api_key, wav = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    chromium = shutil.which("/usr/lib/chromium/chromium") or shutil.which("chromium") or shutil.which("chromium-browser")
    chromedriver = shutil.which("chromedriver")
    if not chromium or not chromedriver:
        print(f"FAIL setup: chromium ({chromium}) and chromedriver ({chromedriver}) are needed "
              "(scripts/setup.sh installs them)")
        print("0 passed, 1 failed")
        return 1
    out = tempfile.mkdtemp(prefix="ondevice-chat-page-")
    browser = Browser(chromium, chromedriver, os.path.join(out, "profile"))
    results = []

    def step(name, body):
        started = time.time()
        try:
            detail = body()
            results.append(True)
            print(f"ok {name} ({time.time() - started:.1f} s){': ' + detail if detail else ''}", flush=True)
            return True
        except Exception as error:
            results.append(False)
            print(f"FAIL {name}: {error}", flush=True)
            traceback.print_exc(file=sys.stdout)
            return False

    def key_then_models():
        browser.go(base_url + "/")
        assert browser.js("return document.title;") == "OnDevice chat"
        browser.wait("!document.getElementById('key-form').hidden", 30, "the API-key form after a 401")
        browser.type("#api-key", api_key)
        browser.click("#key-form button[type=submit]")
        browser.wait("document.body.dataset.models === 'ready'", 30, "the model list")
        kinds = browser.js("return ['model', 'asr-model', 'tts-model'].map(id => "
                           "[...document.getElementById(id).options].map(o => o.value));")
        assert CHAT_MODEL in kinds[0], f"chat models {kinds[0]}"
        assert kinds[1] and kinds[2], f"asr {kinds[1]}, tts {kinds[2]}"
        assert browser.js("return localStorage.getItem('ondevice.apiKey');") == api_key
        browser.js("const s = document.getElementById('model'); s.value = arguments[0]; "
                   "s.dispatchEvent(new Event('change'));", CHAT_MODEL)
        return f"llm {kinds[0]}, asr {kinds[1]}, tts {kinds[2]}"

    def streamed_reply():
        # Record what the page sends, to see the system prompt go first.
        browser.js("window.sent = []; const f = window.fetch; window.fetch = function (url, init) { "
                   "window.sent.push({url: String(url), body: init && typeof init.body === 'string' ? init.body : null}); "
                   "return f.apply(this, arguments); };")
        browser.click("#settings summary")
        browser.type("#system", "You are a friendly assistant. Answer in plain sentences.")
        browser.type("#max-tokens", "48", clear=True)
        browser.type("#temperature", "0.7", clear=True)
        # Shift+Enter adds a line; Enter sends.
        browser.type("#input", "Tell me about the sea." + SHIFT + ENTER + RELEASE + "Two sentences, please.")
        assert browser.js("return document.getElementById('input').value;") == "Tell me about the sea.\nTwo sentences, please."
        assert browser.js("return document.querySelectorAll('#log .message').length;") == 0, "Shift+Enter sent"
        browser.type("#input", ENTER)
        lengths, state, deadline = [], "streaming", time.time() + 120
        while time.time() < deadline:
            seen = browser.js(f"return {REPLY_STATE};")
            if seen:
                state, length = seen
                if state != "streaming":
                    break
                if length and (not lengths or lengths[-1] != length):
                    lengths.append(length)
            time.sleep(0.01)
        final = browser.js(f"return {REPLY_STATE};")
        assert final and final[0] == "done", f"the reply ended as {final}"
        assert len(lengths) >= 2, f"saw the reply at lengths {lengths} while streaming (want two or more)"
        assert final[1] >= lengths[-1] > 0
        sent = [s for s in browser.js("return window.sent;") if s["url"].endswith("/v1/chat/completions")]
        request = json.loads(sent[-1]["body"])
        assert request["stream"] is True and request["model"] == CHAT_MODEL and request["max_tokens"] == 48
        roles = [m["role"] for m in request["messages"]]
        assert roles == ["system", "user"], roles
        assert request["messages"][0]["content"].startswith("You are a friendly assistant.")
        assert browser.js("return document.getElementById('input').value;") == "", "the box kept the sent text"
        assert browser.js(f"return !!{LAST_REPLY}.querySelector('button.speak');"), "no Speak button"
        return f"partial lengths {lengths[:8]}{'…' if len(lengths) > 8 else ''} of {len(lengths)}, final {final[1]}"

    def stop_generation():
        browser.type("#max-tokens", "1500", clear=True)
        browser.type("#temperature", "1", clear=True)
        browser.type("#input", "Write a very long story about a dragon and a knight." + ENTER)
        browser.wait(f"(() => {{ const s = {REPLY_STATE}; return s && s[0] === 'streaming' && s[1] > 10; }})()", 120,
                     "the long reply to start")
        assert not browser.js("return document.getElementById('stop').disabled;")
        browser.click("#stop")
        state = browser.wait(f"(() => {{ const s = {REPLY_STATE}; return s && s[0] !== 'streaming' && s; }})()", 10,
                             "the reply to stop")
        assert state[0] == "stopped", state
        time.sleep(1)
        after = browser.js(f"return {REPLY_STATE};")
        assert after == state, f"the reply kept growing after Stop: {state} then {after}"
        assert browser.js("return document.getElementById('stop').disabled && !document.getElementById('send').disabled;")
        turns = browser.js("return document.querySelectorAll('#log .message').length;")
        assert turns == 4, f"{turns} messages in the log"
        return f"stopped at {state[1]} characters"

    def transcribe_upload():
        browser.type("#audio-file", wav)
        text = browser.wait("!document.body.dataset.transcribing && document.getElementById('input').value", 120,
                            "the transcript in the input box")
        assert "weather" in text.lower(), f"transcript {text!r}"
        status = browser.js("return document.getElementById('status').textContent;")
        assert not status, f"status says {status!r}"
        return repr(text)

    def speak_reply():
        browser.click("#log .message.assistant button.speak")
        duration = browser.wait("(() => { const p = document.getElementById('player'); "
                                "return p.src.startsWith('blob:') && p.readyState >= 1 && isFinite(p.duration) "
                                "&& p.duration > 0 && p.duration; })()", 120, "a playable spoken reply")
        assert not browser.js("return document.getElementById('player').hidden;")
        assert not browser.js("return document.getElementById('player').error;")
        return f"{duration:.2f} s of audio from a blob: URL"

    def narrow_screen():
        browser.resize(390, 844)
        time.sleep(0.3)
        widths = browser.js("return [document.documentElement.scrollWidth, window.innerWidth];")
        assert widths[0] <= widths[1], f"the page is {widths[0]} px wide in a {widths[1]} px window"
        path = os.path.join(out, "chat-page-narrow.png")
        browser.screenshot(path)
        print(f"screenshot {path}", flush=True)
        return check_png(path)

    def wide_screenshot():
        browser.resize(1000, 900)
        time.sleep(0.3)
        path = os.path.join(out, "chat-page.png")
        browser.screenshot(path)
        print(f"screenshot {path}", flush=True)
        return check_png(path)

    def dark_screenshot():
        # The colour scheme follows the system's: emulate a dark one through chromedriver's CDP door.
        browser.session_call("POST", "/goog/cdp/execute", {"cmd": "Emulation.setEmulatedMedia", "params": {
            "features": [{"name": "prefers-color-scheme", "value": "dark"}]}})
        time.sleep(0.3)
        colours = browser.js("const s = getComputedStyle(document.body); return [s.backgroundColor, s.color];")
        def luminance(css):
            r, g, b = [int(x) for x in css[css.index("(") + 1:css.index(")")].split(",")[:3]]
            return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255
        background, text = luminance(colours[0]), luminance(colours[1])
        assert background < 0.2 and text > 0.8, f"dark scheme: background {colours[0]}, text {colours[1]}"
        path = os.path.join(out, "chat-page-dark.png")
        browser.screenshot(path)
        print(f"screenshot {path}", flush=True)
        return check_png(path)

    def no_policy_violations():
        blocked = [e["message"] for e in browser.console() if "Content Security Policy" in e.get("message", "")]
        assert not blocked, blocked
        return None

    try:
        if step("the page asks for the key, then lists the models", key_then_models):
            if step("a reply streams in and finishes", streamed_reply):
                step("Stop ends a long reply", stop_generation)
            step("an uploaded audio file is transcribed into the input box", transcribe_upload)
            step("Speak plays the reply from a blob", speak_reply)
            step("the page fits a narrow screen", narrow_screen)
            step("a screenshot of the page", wide_screenshot)
            step("the page reads in a dark colour scheme", dark_screenshot)
            step("nothing breaks the content security policy", no_policy_violations)
    finally:
        browser.close()
        shutil.rmtree(os.path.join(out, "profile"), ignore_errors=True)  # keep only the screenshots
    passed = sum(results)
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
