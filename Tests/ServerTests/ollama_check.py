#!/usr/bin/env python3
"""Drives the Ollama API of a running `ondevice serve` with the official ollama client and
checks each answer.

Usage: ollama_check.py BASE_URL API_KEY   (BASE_URL without /api, e.g. http://127.0.0.1:8080)
Prints one line per check ("ok NAME" or "FAIL NAME: reason") and exits 1 if any failed.
"""
import json, math, sys, time
from datetime import datetime, timedelta, timezone

import httpx
import ollama
from ollama import Client, ResponseError

from checks import check, finish

base_url, api_key = sys.argv[1], sys.argv[2]
auth = {"Authorization": f"Bearer {api_key}"}
client = Client(host=base_url, headers=auth, timeout=600)
LLM, EMBED = "smollm2-135m-instruct-q4_1", "all-minilm-l6-v2"
# Ollama has no tool_choice: the model decides whether to call. SmolLM2-135M answers weather
# questions in words whatever the prompt, so the tool checks use the smallest model that calls.
TOOL_LLM = "qwen2.5-coder-0.5b-instruct-q4_k_m"
GREEDY = {"temperature": 0, "seed": 7}
def resident():
    return {m.model.removesuffix(":latest"): m for m in client.ps().models}


def assert_final(r):
    """The closing object: done, a reason, counts and nanosecond durations."""
    assert r.done is True and r.done_reason in ("stop", "length"), r
    assert r.prompt_eval_count > 0 and r.eval_count > 0, r
    assert r.total_duration > 0 and r.eval_duration > 0 and r.prompt_eval_duration > 0, r
    assert r.load_duration >= 0 and r.total_duration >= r.eval_duration, r
    datetime.fromisoformat(r.created_at.replace("Z", "+00:00"))


@check("version and root")
def _():
    v = httpx.get(f"{base_url}/api/version", headers=auth).json()["version"]
    assert [int(x) for x in v.split(".")] >= [0, 5, 0], v
    assert httpx.get(base_url + "/").status_code == 200


@check("list")
def _():
    models = {m.model: m for m in client.list().models}
    assert f"{LLM}:latest" in models and f"{EMBED}:latest" in models, list(models)
    m = models[f"{LLM}:latest"]
    assert m.size > 50_000_000 and len(m.digest) == 64 and m.modified_at.year >= 2020, m
    d = m.details
    assert d.format == "gguf" and d.family == "llama" and d.quantization_level == "Q4_1", d
    assert d.parameter_size.endswith("M") and 100 < float(d.parameter_size[:-1]) < 200, d
    e = models[f"{EMBED}:latest"].details
    assert e.format == "safetensors" and e.family == "bert", e


@check("show")
def _():
    s = client.show(LLM)
    assert s.details.family == "llama" and s.details.quantization_level == "Q4_1", s.details
    info = s.modelinfo
    assert info["general.architecture"] == "llama" and info["llama.context_length"] > 0, info
    assert 100_000_000 < info["general.parameter_count"] < 200_000_000, info
    assert "completion" in s.capabilities and "tools" in s.capabilities, s.capabilities
    assert "<|im_start|>" in s.template, s.template[:200]
    assert client.show(EMBED).capabilities == ["embedding"]


@check("generate")
def _():
    r = client.generate(model=LLM, prompt="What is the capital of France?", system="You are brief.",
                        options={"num_predict": 12, **GREEDY})
    assert r.response.strip() and r.model == LLM, r
    assert_final(r)
    assert r.eval_count <= 12


@check("generate stream")
def _():
    chunks = list(client.generate(model=f"{LLM}:latest", prompt="Count from one to five.", stream=True,
                                  options={"num_predict": 12, **GREEDY}))
    assert len(chunks) >= 3 and all(not c.done for c in chunks[:-1]), chunks
    text = "".join(c.response for c in chunks)
    assert text.strip(), chunks
    assert_final(chunks[-1])
    # Streaming is Ollama's default: a body without "stream" gets newline-delimited JSON.
    with httpx.stream("POST", f"{base_url}/api/generate", headers=auth, timeout=600,
                      json={"model": LLM, "prompt": "Hi", "options": {"num_predict": 3}}) as h:
        assert h.headers["content-type"] == "application/x-ndjson", h.headers
        lines = [json.loads(line) for line in h.iter_lines() if line]
    assert lines[-1]["done"] is True and all(l["done"] is False for l in lines[:-1]), lines


@check("generate options")
def _():
    r = client.generate(model=LLM, prompt="List three colours, one per line.",
                        options={"num_predict": 40, "stop": ["\n"], "top_k": 1, "top_p": 0.5, "seed": 3,
                                 "repeat_penalty": 1.1, "num_ctx": 4096})
    assert "\n" not in r.response and r.done_reason == "stop", r


@check("generate format json")
def _():
    r = client.generate(model=LLM, prompt="Describe a cat with its name and age.", format="json",
                        options={"num_predict": 60, **GREEDY})
    assert isinstance(json.loads(r.response), dict), r.response


@check("greedy raw generate equals /v1/completions")
def _():
    # One core: the same prompt, greedy, through both doors gives the same text. Each run starts
    # from a freshly loaded model (keep_alive 0 unloads it after the request; /v1 takes the
    # default), so neither reuses the other's cached prompt: a prompt evaluated whole and one
    # served from the cache may differ in the last float bits, and greedy decoding can follow.
    prompt = "The three primary colours are"
    client.generate(model=LLM, prompt="", keep_alive=0)
    r = client.generate(model=LLM, prompt=prompt, raw=True, keep_alive=0,
                        options={"num_predict": 16, "temperature": 0, "seed": 11})
    assert LLM not in resident()
    v1 = httpx.post(f"{base_url}/v1/completions", headers=auth, timeout=600,
                    json={"model": LLM, "prompt": prompt, "max_tokens": 16, "temperature": 0, "seed": 11}).json()
    assert r.response == v1["choices"][0]["text"], (r.response, v1)
    assert r.eval_count == v1["usage"]["completion_tokens"] and r.prompt_eval_count == v1["usage"]["prompt_tokens"]


@check("chat")
def _():
    r = client.chat(model=LLM, messages=[{"role": "system", "content": "You are brief."},
                                         {"role": "user", "content": "What is the capital of France?"}],
                    options={"num_predict": 12, **GREEDY})
    assert r.message.role == "assistant" and r.message.content.strip(), r
    assert_final(r)


@check("chat stream")
def _():
    chunks = list(client.chat(model=LLM, stream=True, options={"num_predict": 12, **GREEDY},
                              messages=[{"role": "user", "content": "Count from one to five."}]))
    assert len(chunks) >= 3 and "".join(c.message.content for c in chunks).strip(), chunks
    assert_final(chunks[-1])


@check("chat format schema")
def _():
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20},
                                                "age": {"type": "integer"}, "likes_cats": {"type": "boolean"}},
              "required": ["name", "age", "likes_cats"], "additionalProperties": False}
    r = client.chat(model=LLM, format=schema, options={"num_predict": 80, **GREEDY},
                    messages=[{"role": "user", "content": "Describe Alice, 31, who loves cats."}])
    doc = json.loads(r.message.content)
    assert set(doc) == {"name", "age", "likes_cats"}, doc
    assert isinstance(doc["name"], str) and len(doc["name"]) <= 20, doc
    assert isinstance(doc["age"], int) and not isinstance(doc["age"], bool) and isinstance(doc["likes_cats"], bool), doc


WEATHER = [{"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "The city"}},
                   "required": ["city"]}}}]
ASK = [{"role": "user", "content": "What is the weather in Paris right now?"}]


@check("chat tools")
def _():
    r = client.chat(model=TOOL_LLM, tools=WEATHER, messages=ASK, options={"num_predict": 64, **GREEDY})
    calls = r.message.tool_calls
    assert calls and calls[0].function.name == "get_weather", r.message
    assert calls[0].function.arguments == {"city": "Paris"}, calls
    assert r.done_reason == "stop", r
    # The result goes back as a tool message (arguments as an object, as Ollama sends them);
    # the model answers in words.
    follow = client.chat(model=LLM, options={"num_predict": 24, **GREEDY}, messages=ASK + [
        {"role": "assistant", "content": "", "tool_calls": [c.model_dump() for c in calls]},
        {"role": "tool", "tool_name": "get_weather", "content": "sunny, 24 C"}])
    assert follow.message.content.strip() and not follow.message.tool_calls, follow.message


@check("chat tools stream")
def _():
    calls, chunks = [], list(client.chat(model=TOOL_LLM, tools=WEATHER, messages=ASK, stream=True,
                                         options={"num_predict": 64, **GREEDY}))
    for chunk in chunks:
        calls += chunk.message.tool_calls or []
    assert len(calls) == 1 and calls[0].function.name == "get_weather", calls
    assert isinstance(calls[0].function.arguments.get("city"), str), calls
    assert_final(chunks[-1])


@check("embed")
def _():
    r = client.embed(model=EMBED, input=["a cat sat on the mat", "the stock market fell"])
    assert len(r.embeddings) == 2 and all(len(v) == 384 for v in r.embeddings), r
    for v in r.embeddings:
        assert abs(math.sqrt(sum(x * x for x in v)) - 1) < 1e-3
    assert r.prompt_eval_count > 0 and r.total_duration > 0, r
    one = client.embed(model=f"{EMBED}:latest", input="a cat sat on the mat").embeddings[0]
    old = client.embeddings(model=EMBED, prompt="a cat sat on the mat").embedding
    assert max(abs(a - b) for a, b in zip(one, r.embeddings[0])) < 1e-5
    assert max(abs(a - b) for a, b in zip(one, old)) < 1e-5
    long = "word " * 1000
    assert len(client.embed(model=EMBED, input=long, truncate=True).embeddings[0]) == 384
    try:
        client.embed(model=EMBED, input=long, truncate=False)
        raise AssertionError("an over-long input was embedded with truncate off")
    except ResponseError as e:
        assert e.status_code == 400 and "truncate" in e.error, (e.status_code, e.error)


@check("keep_alive")
def _():
    # keep_alive 0 with an empty prompt unloads: Ollama's way.
    client.generate(model=LLM, prompt="Hi", options={"num_predict": 1})
    assert LLM in resident(), resident()
    r = client.generate(model=LLM, prompt="", keep_alive=0)
    assert r.done and r.done_reason == "unload", r
    assert LLM not in resident(), resident()
    # An empty prompt loads the model and keeps it for keep_alive.
    r = client.generate(model=LLM, keep_alive="10m")
    assert r.done_reason == "load", r
    m = resident()[LLM]
    left = (m.expires_at - datetime.now(timezone.utc)).total_seconds()
    assert 540 < left <= 600 and m.size > 0 and m.context_length > 0, (left, m)
    # A negative keep_alive keeps it with no expiry; a request's keep_alive 0 unloads after it.
    client.chat(model=LLM, messages=[{"role": "user", "content": "Hi"}], keep_alive=-1, options={"num_predict": 1})
    assert resident()[LLM].expires_at is None, resident()[LLM]
    client.chat(model=LLM, messages=[{"role": "user", "content": "Hi"}], keep_alive=0, options={"num_predict": 1})
    assert LLM not in resident(), resident()
    client.embed(model=EMBED, input="x", keep_alive="1h30m")
    left = (resident()[EMBED].expires_at - datetime.now(timezone.utc)).total_seconds()
    assert 5300 < left <= 5400, left
    client.embed(model=EMBED, input="x", keep_alive=0)
    assert EMBED not in resident(), resident()


@check("errors")
def _():
    try:
        client.chat(model="no-such-model", messages=[{"role": "user", "content": "hi"}])
        raise AssertionError("an unknown model was accepted")
    except ResponseError as e:
        assert e.status_code == 404 and e.error == "model 'no-such-model' not found", (e.status_code, e.error)
    try:
        client.show("no-such-model:latest")
        raise AssertionError("show answered for an unknown model")
    except ResponseError as e:
        assert e.status_code == 404 and "no-such-model" in e.error, e
    try:
        client.generate(model=LLM, prompt="hi", options={"temperature": "hot"})
        raise AssertionError("a string temperature was accepted")
    except ResponseError as e:
        assert e.status_code == 400 and "options.temperature" in e.error, e
    try:
        client.generate(model=LLM, prompt="hi", keep_alive="5 minutes")
        raise AssertionError("a malformed keep_alive was accepted")
    except ResponseError as e:
        assert e.status_code == 400 and "keep_alive" in e.error, e
    try:
        client.embed(model=LLM, input="hi")
        raise AssertionError("a text model embedded")
    except ResponseError as e:
        assert e.status_code == 400, e
    try:
        list(client.generate(model="no-such-model", prompt="hi", stream=True))
        raise AssertionError("a stream for an unknown model started")
    except ResponseError as e:
        assert e.status_code == 404, e
    try:
        Client(host=base_url, headers={"Authorization": "Bearer wrong"}).list()
        raise AssertionError("a wrong API key was accepted")
    except ResponseError as e:
        assert e.status_code == 401 and e.error, e


finish(f"ollama {ollama.__version__ if hasattr(ollama, '__version__') else ''}: ")
