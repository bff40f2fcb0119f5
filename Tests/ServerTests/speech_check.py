#!/usr/bin/env python3
"""Drives `ondevice serve`'s audio endpoints with the official openai client: speech in every
format, streamed, at two speeds, and each compressed file transcribed back by Whisper.

Usage: speech_check.py BASE_URL API_KEY
Prints one line per check ("ok NAME" or "FAIL NAME: reason") and exits 1 if any failed.
"""
import io, struct, sys

import openai
from openai import OpenAI

from checks import check, finish

base_url, api_key = sys.argv[1], sys.argv[2]
client = OpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=600)
VOICE, ASR = "piper-en_US-joe-medium", "whisper-tiny.en-ct2"
TEXT = "The weather today is sunny and warm. Please call me back before six."
spoken = {}


def wav_seconds(data):
    # The streamed WAV says "to the end of the file" in its sizes; count the bytes after the header.
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE", data[:12]
    channels, rate = struct.unpack("<HI", data[22:28])
    bits = struct.unpack("<H", data[34:36])[0]
    assert data[36:40] == b"data", data[36:40]
    return (len(data) - 44) / (rate * channels * bits // 8)


@check("speech in every format")
def _():
    magic = {"mp3": (b"ID3", b"\xff"), "opus": (b"OggS",), "flac": (b"fLaC",), "wav": (b"RIFF",)}
    for fmt in ["mp3", "opus", "flac", "wav", "pcm"]:
        # OpenAI's clients name a model and a voice; here the model is the Piper voice and any
        # voice name is its one speaker.
        r = client.audio.speech.create(model=VOICE, voice="alloy", input=TEXT, response_format=fmt)
        data = r.read()
        assert len(data) > 4000, (fmt, len(data))
        if fmt in magic:
            assert data.startswith(magic[fmt]), (fmt, data[:8])
        spoken[fmt] = data
    seconds = wav_seconds(spoken["wav"])
    assert 3 < seconds < 9, seconds
    pcm_seconds = len(spoken["pcm"]) / (24000 * 2)
    assert abs(pcm_seconds - seconds) < 0.05, (pcm_seconds, seconds)


@check("compressed speech transcribes back to its words")
def _():
    for fmt in ["mp3", "opus", "flac", "wav"]:
        name = "speech." + ("ogg" if fmt == "opus" else fmt)
        text = client.audio.transcriptions.create(model=ASR, file=(name, io.BytesIO(spoken[fmt])), response_format="text")
        words = text.lower()
        for w in ["weather", "sunny", "call", "back"]:
            assert w in words, (fmt, text)


@check("speech streams sentence by sentence")
def _():
    chunks = []
    with client.audio.speech.with_streaming_response.create(model=VOICE, voice="alloy", input=TEXT + " " + TEXT,
                                                           response_format="pcm") as r:
        assert r.headers.get("transfer-encoding") == "chunked", r.headers
        for chunk in r.iter_bytes(chunk_size=None):
            chunks.append(len(chunk))
    assert len(chunks) >= 2 and sum(chunks) > 24000, chunks


@check("speed and the voice's own pace")
def _():
    slow = wav_seconds(client.audio.speech.create(model=VOICE, voice="alloy", input=TEXT, response_format="wav").read())
    fast = wav_seconds(client.audio.speech.create(model=VOICE, voice="alloy", input=TEXT, response_format="wav", speed=2.0).read())
    assert 0.4 < fast / slow < 0.65, (fast, slow)


@check("subtitles and segments")
def _():
    audio = io.BytesIO(spoken["flac"])
    srt = client.audio.transcriptions.create(model=ASR, file=("s.flac", audio), response_format="srt")
    assert srt.startswith("1\n00:00:00,000 --> 00:00:0"), srt
    vtt = client.audio.transcriptions.create(model=ASR, file=("s.flac", io.BytesIO(spoken["flac"])), response_format="vtt")
    assert vtt.startswith("WEBVTT\n\n00:00:00.000 --> "), vtt
    v = client.audio.transcriptions.create(model=ASR, file=("s.flac", io.BytesIO(spoken["flac"])),
                                           response_format="verbose_json", timestamp_granularities=["segment"])
    assert v.segments and v.segments[-1].end <= v.duration + 0.5, v
    w = client.audio.transcriptions.create(model=ASR, file=("s.flac", io.BytesIO(spoken["flac"])),
                                           response_format="verbose_json", timestamp_granularities=["word", "segment"])
    assert w.segments and w.words, w
    spoken_words = [x.word.lower().strip(".,") for x in w.words]
    for word in ["weather", "sunny", "call", "back"]:
        assert word in spoken_words, spoken_words
    times = [(x.start, x.end) for x in w.words]
    assert all(s <= e for s, e in times) and all(a[1] <= b[0] + 0.001 for a, b in zip(times, times[1:])), times
    assert 0 <= times[0][0] and times[-1][1] <= w.duration + 0.02, (times, w.duration)
    only = client.audio.transcriptions.create(model=ASR, file=("s.flac", io.BytesIO(spoken["flac"])),
                                              response_format="verbose_json", timestamp_granularities=["word"])
    assert only.words and not getattr(only, "segments", None), only


@check("audio errors")
def _():
    cases = [
        (lambda: client.audio.speech.create(model=VOICE, voice="alloy", input=TEXT, response_format="aac"), "response_format"),
        (lambda: client.audio.speech.create(model=VOICE, voice="alloy", input=TEXT, speed=9), "speed"),
        (lambda: client.audio.speech.create(model=VOICE, voice="alloy", input=""), "input"),
        (lambda: client.audio.transcriptions.create(model=ASR, file=("t.mp3", io.BytesIO(b"not audio at all" * 100))), "file"),
        (lambda: client.audio.transcriptions.create(model=ASR, file=("s.flac", io.BytesIO(spoken["flac"])),
                                                    response_format="verbose_json", timestamp_granularities=["sentence"]),
         "timestamp_granularities"),
        (lambda: client.audio.transcriptions.create(model=ASR, file=("s.flac", io.BytesIO(spoken["flac"])),
                                                    response_format="json", timestamp_granularities=["word"]),
         "timestamp_granularities"),
    ]
    for call, param in cases:
        try:
            call()
            raise AssertionError(f"accepted a bad {param}")
        except openai.BadRequestError as e:
            assert e.body["param"] == param, e.body
    try:
        client.audio.speech.create(model="tts-1", voice="alloy", input=TEXT)
        raise AssertionError("an unknown voice model was accepted")
    except openai.NotFoundError as e:
        assert e.body["code"] == "model_not_found", e.body


finish()
