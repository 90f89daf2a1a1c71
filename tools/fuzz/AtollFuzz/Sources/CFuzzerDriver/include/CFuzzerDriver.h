#ifndef ATOLL_C_FUZZER_DRIVER_H
#define ATOLL_C_FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's entry point for programs with a main of their own (compiler-rt, LLVM 12 and
// later; linked by -sanitize=fuzzer). SwiftPM gives every executable target a main of its own,
// so each fuzz target's @main calls this instead of relying on libFuzzer's main.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
