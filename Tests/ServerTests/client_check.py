#!/usr/bin/env python3
"""Drives a running `ondevice serve` with the official openai client and checks each answer.

Usage: client_check.py BASE_URL API_KEY WAV_FILE
Prints one line per check ("ok NAME" or "FAIL NAME: reason") and exits 1 if any failed.
"""
import json, math, sys

import openai
from openai import OpenAI

from checks import check, finish

base_url, api_key, wav = sys.argv[1], sys.argv[2], sys.argv[3]
client = OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=600)
LLM, EMBED, ASR = "smollm2-135m-instruct-q4_1", "all-minilm-l6-v2", "whisper-tiny.en-ct2"
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


def bad_request(param, make):
    """`make()` must be refused with a 400 naming `param`, in OpenAI's error shape."""
    try:
        make()
    except openai.BadRequestError as e:
        assert e.status_code == 400 and e.body["param"] == param and e.body["type"] == "invalid_request_error", e.body
        return
    raise AssertionError(f"accepted a bad {param}")


@check("n choices")
def _():
    ask = dict(model=LLM, max_tokens=12, temperature=1.0, seed=11,
               messages=[{"role": "user", "content": "Name a colour."}])
    # Reproducible as the engine is: the same seed on the same cached prompt. (A prompt read from
    # scratch goes through the batched kernels, one continued from the cache through the
    # one-token ones, which round differently; so the first request only warms the cache.)
    client.chat.completions.create(n=3, **ask)
    r = client.chat.completions.create(n=3, **ask)
    assert [c.index for c in r.choices] == [0, 1, 2], r.choices
    again = client.chat.completions.create(n=3, **ask)
    assert [c.message.content for c in again.choices] == [c.message.content for c in r.choices], "a seed must fix every choice"
    # Choice 0 is the reply the request alone gives; the others have seeds of their own.
    one = client.chat.completions.create(**ask)
    assert one.choices[0].message.content == r.choices[0].message.content, (one, r)
    assert r.usage.prompt_tokens == one.usage.prompt_tokens, "the prompt counts once"
    assert 3 <= r.usage.completion_tokens <= 36, r.usage
    # Streamed, the chunks carry their choice's index and each choice ends with its reason.
    texts, finishes = {}, {}
    for chunk in client.chat.completions.create(n=3, stream=True, **ask):
        for c in chunk.choices:
            texts[c.index] = texts.get(c.index, "") + (c.delta.content or "")
            if c.finish_reason:
                finishes[c.index] = c.finish_reason
    assert sorted(finishes) == [0, 1, 2], finishes
    assert [texts[i] for i in range(3)] == [c.message.content for c in r.choices], (texts, r.choices)
    c = client.completions.create(model=LLM, prompt="Colours:", max_tokens=6, temperature=1.0, seed=3, n=2)
    assert [x.index for x in c.choices] == [0, 1], c
    bad_request("n", lambda: client.chat.completions.create(n=9, **ask))
    bad_request("n", lambda: client.chat.completions.create(n=0, **ask))
    bad_request("n", lambda: client.chat.completions.create(extra_body={"n": "2"}, **ask))


def expect_token_logprobs(content, k, greedy):
    assert content, "no token logprobs"
    for t in content:
        assert t.logprob <= 0, t
        assert bytes(t.bytes).decode("utf-8", "replace") == t.token or "\ufffd" in t.token, t
        tops = [x.logprob for x in t.top_logprobs]
        assert len(tops) == k and tops == sorted(tops, reverse=True), t
        assert sum(math.exp(x) for x in tops) <= 1 + 1e-5, tops
        if greedy and k:
            assert t.token == t.top_logprobs[0].token and abs(t.logprob - tops[0]) < 1e-6, t


@check("logprobs chat")
def _():
    ask = dict(model=LLM, max_tokens=10, temperature=0, messages=[{"role": "user", "content": "What is the capital of France?"}])
    r = client.chat.completions.create(logprobs=True, top_logprobs=3, **ask)
    content = r.choices[0].logprobs.content
    expect_token_logprobs(content, 3, greedy=True)
    assert b"".join(bytes(t.bytes) for t in content).decode() == r.choices[0].message.content, (content, r)
    plain = client.chat.completions.create(logprobs=True, **ask).choices[0].logprobs.content
    expect_token_logprobs(plain, 0, greedy=True)
    assert client.chat.completions.create(**ask).choices[0].logprobs is None
    # Streamed: each content delta carries the tokens of its own text.
    streamed, text = [], ""
    for chunk in client.chat.completions.create(logprobs=True, top_logprobs=3, stream=True, **ask):
        for c in chunk.choices:
            text += c.delta.content or ""
            if c.delta.content:
                assert c.logprobs and b"".join(bytes(t.bytes) for t in c.logprobs.content).decode() == c.delta.content, c
                streamed += c.logprobs.content
    expect_token_logprobs(streamed, 3, greedy=True)
    assert b"".join(bytes(t.bytes) for t in streamed).decode() == text, (streamed, text)
    # Sampled hot, the figures are still the model's own (before temperature), so <= 0 and sorted.
    hot = client.chat.completions.create(logprobs=True, top_logprobs=5, seed=1, **{**ask, "temperature": 1.5})
    expect_token_logprobs(hot.choices[0].logprobs.content, 5, greedy=False)


@check("logprobs completions")
def _():
    r = client.completions.create(model=LLM, prompt="The sky is", max_tokens=8, temperature=0, logprobs=2)
    lp = r.choices[0].logprobs
    n = len(lp.tokens)
    assert n > 0 and len(lp.token_logprobs) == n and len(lp.top_logprobs) == n and len(lp.text_offset) == n, lp
    assert "".join(lp.tokens) == r.choices[0].text, (lp.tokens, r.choices[0].text)
    assert lp.text_offset[0] == 0 and lp.text_offset == sorted(lp.text_offset), lp.text_offset
    for token, logprob, top in zip(lp.tokens, lp.token_logprobs, lp.top_logprobs):
        assert logprob <= 0 and 1 <= len(top) <= 2, (token, logprob, top)
        assert abs(max(top.values()) - logprob) < 1e-6, "greedy: the chosen token is the most likely"
    streamed, offsets, text = [], [], ""
    for chunk in client.completions.create(model=LLM, prompt="The sky is", max_tokens=8, temperature=0, logprobs=2, stream=True):
        for c in chunk.choices:
            text += c.text
            if c.logprobs:
                streamed += c.logprobs.tokens
                offsets += c.logprobs.text_offset
    assert "".join(streamed) == text and offsets[0] == 0 and offsets == sorted(offsets), (streamed, offsets, text)


@check("logprobs errors")
def _():
    msgs = [{"role": "user", "content": "hi"}]
    bad_request("logprobs", lambda: client.chat.completions.create(model=LLM, messages=msgs, extra_body={"logprobs": 3}))
    bad_request("top_logprobs", lambda: client.chat.completions.create(model=LLM, messages=msgs, logprobs=True, top_logprobs=21))
    bad_request("top_logprobs", lambda: client.chat.completions.create(model=LLM, messages=msgs, top_logprobs=2))
    bad_request("top_logprobs", lambda: client.chat.completions.create(model=LLM, messages=msgs, logprobs=True, extra_body={"top_logprobs": "2"}))
    bad_request("logprobs", lambda: client.completions.create(model=LLM, prompt="hi", logprobs=6))
    bad_request("logprobs", lambda: client.completions.create(model=LLM, prompt="hi", extra_body={"logprobs": True}))


TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
    {"type": "function", "function": {
        "name": "add", "description": "Adds two integers",
        "parameters": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                       "required": ["a", "b"]}}}]


@check("tool_choice")
def _():
    ask = dict(model=LLM, max_tokens=64, temperature=0, tools=TOOLS,
               messages=[{"role": "user", "content": "What is the weather in Paris?"}])
    r = client.chat.completions.create(tool_choice="required", **ask)
    assert r.choices[0].finish_reason == "tool_calls" and r.choices[0].message.tool_calls, r
    # A named function is the only one a call may name, even when the question fits another.
    named = client.chat.completions.create(tool_choice={"type": "function", "function": {"name": "add"}}, **ask)
    calls = named.choices[0].message.tool_calls
    assert named.choices[0].finish_reason == "tool_calls" and [c.function.name for c in calls] == ["add"], named
    args = json.loads(calls[0].function.arguments)
    assert isinstance(args["a"], int) and isinstance(args["b"], int), args
    none = client.chat.completions.create(tool_choice="none", **ask)
    assert not none.choices[0].message.tool_calls and none.choices[0].finish_reason in ("stop", "length"), none
    assert none.choices[0].message.content.strip(), none
    auto = client.chat.completions.create(tool_choice="auto", **ask)
    assert auto.choices[0].finish_reason in ("stop", "length", "tool_calls"), auto
    bad_request("tool_choice", lambda: client.chat.completions.create(tool_choice="sometimes", **ask))
    bad_request("tool_choice", lambda: client.chat.completions.create(extra_body={"tool_choice": 1}, **ask))
    bad_request("tool_choice", lambda: client.chat.completions.create(
        tool_choice={"type": "function", "function": {"name": "nope"}}, **ask))
    bad_request("tool_choice", lambda: client.chat.completions.create(
        model=LLM, tool_choice="required", messages=[{"role": "user", "content": "hi"}]))


@check("parallel_tool_calls")
def _():
    ask = dict(model=LLM, max_tokens=96, temperature=0, tools=TOOLS, tool_choice="required",
               messages=[{"role": "user", "content": "What is the weather in Paris, in London and in Rome?"}])
    r = client.chat.completions.create(parallel_tool_calls=False, **ask)
    assert r.choices[0].finish_reason == "tool_calls" and len(r.choices[0].message.tool_calls) == 1, r
    # Allowed (the default), a reply may hold several calls: each valid, each with its own id.
    for stream in (False, True):
        several = client.chat.completions.create(stream=stream, **ask)
        if stream:
            calls = {}
            for chunk in several:
                for c in chunk.choices:
                    for t in c.delta.tool_calls or []:
                        calls.setdefault(t.index, (t.id, t.function.name, t.function.arguments))
            assert sorted(calls) == list(range(len(calls))), calls
            calls = [calls[i] for i in sorted(calls)]
        else:
            calls = [(c.id, c.function.name, c.function.arguments) for c in several.choices[0].message.tool_calls]
        assert 1 <= len(calls) <= 8 and len({c[0] for c in calls}) == len(calls), calls
        for _, name, arguments in calls:
            args = json.loads(arguments)
            assert name in ("get_weather", "add") and isinstance(args, dict), calls
    bad_request("parallel_tool_calls", lambda: client.chat.completions.create(extra_body={"parallel_tool_calls": "no"}, **ask))


@check("unknown fields are ignored")
def _():
    r = client.chat.completions.create(model=LLM, max_tokens=2, messages=[{"role": "user", "content": "hi"}],
                                       extra_body={"frobnicate": {"x": 1}, "user_tier": 3})
    assert r.choices[0].message.role == "assistant", r


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


finish()
