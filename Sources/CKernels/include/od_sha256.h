// SHA-256 block compression with the x86 SHA extensions (SHA-NI), chosen at run time. The Swift
// `SHA256` in ModelStore owns padding and buffering and falls back to its own portable rounds
// when `od_sha256_hw_available()` is 0, so this file is only the hot loop.
#ifndef ONDEVICE_SHA256_H
#define ONDEVICE_SHA256_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when this CPU has the SHA extensions (and SSE4.1), so `od_sha256_compress_hw` may be called.
int od_sha256_hw_available(void);

/// Runs `blocks` 64-byte blocks of `data` through the compression function, updating `state`
/// (the eight working words a..h of FIPS 180-4, in that order). Call only when
/// `od_sha256_hw_available()` returned 1; on other CPUs it leaves `state` unchanged.
void od_sha256_compress_hw(uint32_t state[8], const uint8_t *data, size_t blocks);

#ifdef __cplusplus
}
#endif
#endif
