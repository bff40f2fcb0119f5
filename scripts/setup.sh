#!/usr/bin/env bash
# Sets up a fresh Debian machine for OnDevice: the Debian packages the package links, the pinned
# test and demo models (fetched with pip and verified by scripts/fetch-models.py), the openai and
# ollama Python clients for the server tests (scripts/setup-openai.sh, scripts/setup-ollama.sh), gguf-py for the synthetic
# architecture tests (scripts/setup-python-tools.sh), headless Chromium for the chat page test, and a release
# build of the `ondevice` command. Safe to run again: every step is cached.
#
# Usage: scripts/setup.sh [--no-build] [MODEL_ID ...]   (default models: the LLMs, the embedding models and the OCR models)
set -euo pipefail
cd "$(dirname "$0")/.."

build=1
models=()
for a in "$@"; do
    case "$a" in
        --no-build) build=0 ;;
        *) models+=("$a") ;;
    esac
done
[ ${#models[@]} -gt 0 ] || models=(smollm2-135m-instruct-q4_1 gemma3-270m-q4_k_m qwen2.5-coder-0.5b-instruct-q4_k_m all-minilm-l6-v2 nomic-embed-text-v1.5-f16 mediapipe-face-detection-short mediapipe-face-landmark mediapipe-selfie-segmentation ppocr-v4-det ppocr-v4-cls ppocr-v4-rec)

# Debian packages the package links as system libraries: espeak-ng (the phonemizer Piper voices
# are trained with), libjpeg-turbo and libpng (image decoding), libsndfile (compressed audio).
apt_packages=(libespeak-ng-dev espeak-ng-data libjpeg62-turbo-dev libpng-dev libsndfile1-dev)
# The reference audio codecs the tests check ours against (Tests/SpeechTests/AudioFileTests).
apt_packages+=(flac lame mpg123 opus-tools vorbis-tools)
# Headless Chromium and its WebDriver, for the chat page's browser test (Tests/ServerTests/ChatPageTests).
apt_packages+=(chromium chromium-driver)
missing=()
for p in "${apt_packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

command -v swift >/dev/null || { [ -x /opt/swift/usr/bin/swift ] && export PATH=/opt/swift/usr/bin:$PATH; }
command -v swift >/dev/null || { echo "setup: the Swift toolchain is not on PATH" >&2; exit 1; }

python3 scripts/fetch-models.py "${models[@]}"
# The official openai and ollama clients, which the server tests (Tests/ServerTests) drive
# `ondevice serve` with (its OpenAI and Ollama APIs).
scripts/setup-openai.sh
scripts/setup-ollama.sh
# gguf-py and numpy, which write the synthetic decoders the architecture tests check.
scripts/setup-python-tools.sh

if [ "$build" = 1 ]; then
    swift build -c release --product ondevice
fi
