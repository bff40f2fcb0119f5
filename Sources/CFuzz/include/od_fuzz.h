// libFuzzer's driver, reached only when the binary links it (scripts/fuzz.sh builds
// ondevice-fuzz with -sanitize=fuzzer,address). In every other build od_fuzz_run returns -1
// and ondevice-fuzz replays files instead, so one source serves both.
#ifndef OD_FUZZ_H
#define OD_FUZZ_H

#include <stddef.h>
#include <stdint.h>

typedef int (*od_fuzz_callback)(const uint8_t *data, size_t size);

/// Runs libFuzzer over `callback` with the process's arguments; -1 when libFuzzer is not linked.
int od_fuzz_run(int *argc, char ***argv, od_fuzz_callback callback);

#endif
