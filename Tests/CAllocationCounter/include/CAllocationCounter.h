// Counts heap allocations of the process it is linked into, by interposing malloc and friends
// (they forward to glibc's __libc_* functions). Linked only into AtollQueryProbe, a test
// executable that measures how many allocations a query evaluation makes.
#pragma once
#include <stdint.h>

/// Starts counting from zero.
void atoll_allocations_start(void);
/// Stops counting and returns the number of allocations (malloc, calloc, realloc, aligned) since start.
uint64_t atoll_allocations_stop(void);
