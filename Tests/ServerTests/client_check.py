#!/usr/bin/env python3
"""Drives a running `ondevice serve` with the official openai client and checks each answer.

Usage: client_check.py BASE_URL API_KEY WAV_FILE
Prints one line per check ("ok NAME" or "FAIL NAME: reason") and exits 1 if any failed.
"""
import json, math, sys

import openai
from openai import OpenAI

base_url, api_key, wav = sys.argv[1], sys.argv[2], sys.argv[3]
client = OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=600)
LLM, EMBED, ASR = "smollm2-135m-instruct-q4_1", "all-minilm-l6-v2", "whisper-tiny.en-ct2"
failures = []
ran = []


def check(name):
    def run(fn):
        ran.append(name)
        try:
            fn()
            print("ok", name, flush=True)
        except Exception as e:  # every failure is reported, then the next check runs
            failures.append(name)
            print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
    return run


@check("models")
def _():
    ids = [m.id for m in client.models.list()]
    assert LLM in ids and EMBED in ids and ASR in ids, ids


@check("chat")
def _():
    r = client.chat.completions.create(model=LLM, max_tokens=12, temperature=0,
                                       messages=[{"role": "system", "content": "You are brief."},
                                                 {"role": "user", "content": "What is the capital of France?"}])
    assert r.object == "chat.completion" and r.choices[0].message.role == "assistant"
    assert r.choices[0].message.content.strip(), r
    assert r.choices[0].finish_reason in ("stop", "length")
    assert r.usage.prompt_tokens > 0 and 0 < r.usage.completion_tokens <= 12
    assert r.usage.total_tokens == r.usage.prompt_tokens + r.usage.completion_tokens


@check("chat stream")
def _():
    stream = client.chat.completions.create(model=LLM, max_tokens=12, temperature=0, stream=True,
                                            stream_options={"include_usage": True},
                                            messages=[{"role": "user", "content": "Count from one to five."}])
    text, finish, usage, chunks = "", None, None, 0
    for chunk in stream:
        chunks += 1
        if chunk.usage:
            usage = chunk.usage
        for c in chunk.choices:
            text += c.delta.content or ""
            finish = c.finish_reason or finish
    assert chunks >= 3 and text.strip(), (chunks, text)
    assert finish in ("stop", "length") and usage and usage.completion_tokens > 0, (finish, usage)


@check("completions")
def _():
    r = client.completions.create(model=LLM, prompt="The sky is", max_tokens=6, temperature=0)
    assert r.object == "text_completion" and r.choices[0].text, r
    assert r.usage.completion_tokens > 0


@check("completions stream")
def _():
    parts = [c.choices[0].text for c in client.completions.create(model=LLM, prompt="Once upon a time", max_tokens=6,
                                                                     temperature=0, stream=True) if c.choices]
    assert "".join(parts), parts


@check("embeddings")
def _():
    r = client.embeddings.create(model=EMBED, input=["a cat sat on the mat", "the stock market fell"])
    assert len(r.data) == 2 and [d.index for d in r.data] == [0, 1]
    for d in r.data:
        assert len(d.embedding) == 384 and abs(math.sqrt(sum(x * x for x in d.embedding)) - 1) < 1e-3
    assert r.usage.prompt_tokens > 0
    # The official client asks for base64 by default when numpy is absent; both forms must agree.
    r2 = client.embeddings.create(model=EMBED, input="a cat sat on the mat", encoding_format="float")
    assert max(abs(a - b) for a, b in zip(r2.data[0].embedding, r.data[0].embedding)) < 1e-5


@check("transcription")
def _():
    with open(wav, "rb") as f:
        r = client.audio.transcriptions.create(model=ASR, file=("clip.wav", f, "audio/wav"))
    assert "weather" in r.text.lower() and "sunny" in r.text.lower(), r.text


@check("tool call")
def _():
    tools = [{"type": "function", "function": {
        "name": "get_weather", "description": "Current weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
    r = client.chat.completions.create(model=LLM, max_tokens=64, temperature=0, tools=tools, tool_choice="required",
                                       messages=[{"role": "user", "content": "What is the weather in Paris?"}])
    choice = r.choices[0]
    assert choice.finish_reason == "tool_calls", choice
    call = choice.message.tool_calls[0]
    assert call.type == "function" and call.function.name == "get_weather" and call.id
    args = json.loads(call.function.arguments)
    assert isinstance(args.get("city"), str), args
    # The result goes back as a tool message; the model answers in words (tools "none").
    follow = client.chat.completions.create(model=LLM, max_tokens=16, temperature=0, messages=[
        {"role": "user", "content": "What is the weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
        {"role": "tool", "tool_call_id": call.id, "content": "sunny, 24 C"}])
    assert follow.choices[0].message.content.strip(), follow


@check("tool call stream")
def _():
    tools = [{"type": "function", "function": {
        "name": "add", "description": "Adds two integers",
        "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                       "required": ["a", "b"]}}}]
    stream = client.chat.completions.create(model=LLM, max_tokens=64, temperature=0, tools=tools, stream=True,
                                            tool_choice={"type": "function", "function": {"name": "add"}},
                                            messages=[{"role": "user", "content": "What is 2 plus 3?"}])
    calls, finish = {}, None
    for chunk in stream:
        for c in chunk.choices:
            finish = c.finish_reason or finish
            for t in c.delta.tool_calls or []:
                entry = calls.setdefault(t.index, {"name": "", "arguments": ""})
                entry["name"] += t.function.name or ""
                entry["arguments"] += t.function.arguments or ""
    assert finish == "tool_calls" and calls[0]["name"] == "add", (finish, calls)
    args = json.loads(calls[0]["arguments"])
    assert isinstance(args["a"], int) and isinstance(args["b"], int), args


@check("json schema")
def _():
    schema = {"type": "object", "properties": {"name": {"type": "string", "maxLength": 20},
                                                "age": {"type": "integer"}, "likes_cats": {"type": "boolean"}},
              "required": ["name", "age", "likes_cats"], "additionalProperties": False}
    r = client.chat.completions.create(
        model=LLM, max_tokens=80, temperature=0,
        response_format={"type": "json_schema", "json_schema": {"name": "person", "schema": schema, "strict": True}},
        messages=[{"role": "user", "content": "Describe Alice, 31, who loves cats."}])
    doc = json.loads(r.choices[0].message.content)
    assert set(doc) == {"name", "age", "likes_cats"}, doc
    assert isinstance(doc["name"], str) and isinstance(doc["age"], int) and isinstance(doc["likes_cats"], bool), doc


@check("response_format json_object")
def _():
    # Any JSON object: the grammar admits members of any name and value, so the reply parses as
    # an object whatever the model chooses to put in it.
    r = client.chat.completions.create(
        model=LLM, max_tokens=80, temperature=0, response_format={"type": "json_object"},
        messages=[{"role": "user", "content": "Describe a cat in JSON with its name and age."}])
    assert r.choices[0].finish_reason == "stop", r
    doc = json.loads(r.choices[0].message.content)
    assert isinstance(doc, dict), doc


@check("errors")
def _():
    try:
        client.chat.completions.create(model="no-such-model", messages=[{"role": "user", "content": "hi"}])
        raise AssertionError("an unknown model was accepted")
    except openai.NotFoundError as e:
        assert e.body["code"] == "model_not_found", e.body
    try:
        OpenAI(base_url=base_url, api_key="wrong", max_retries=0).models.list()
        raise AssertionError("a wrong API key was accepted")
    except openai.AuthenticationError:
        pass
    try:
        client.chat.completions.create(model=LLM, messages=[])
        raise AssertionError("empty messages were accepted")
    except openai.BadRequestError as e:
        assert e.body["param"] == "messages", e.body


print(f"{len(ran) - len(failures)} passed, {len(failures)} failed", flush=True)
sys.exit(1 if failures else 0)
