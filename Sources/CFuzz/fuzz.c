#include "od_fuzz.h"

// Weak: resolves to NULL unless libFuzzer is linked (the fuzz build also passes
// --undefined=LLVMFuzzerRunDriver so the linker pulls it out of the runtime archive).
extern int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *, size_t)) __attribute__((weak));

int od_fuzz_run(int *argc, char ***argv, od_fuzz_callback callback) {
    if (!LLVMFuzzerRunDriver) return -1;
    return LLVMFuzzerRunDriver(argc, argv, callback);
}
