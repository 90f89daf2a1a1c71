// Counts heap allocations of the process it is linked into, by interposing malloc and friends
// (they forward to glibc's __libc_* functions). Made for AtollQueryProbe, a test executable that
// measures how many allocations a query evaluation makes; SwiftPM also links it into the test
// bundle, whose allocations it then counts for nobody. Off in sanitizer builds.
#pragma once
#include <stdint.h>

/// Starts counting from zero.
void atoll_allocations_start(void);
/// Stops counting and returns the number of allocations (malloc, calloc, realloc, aligned) since start.
uint64_t atoll_allocations_stop(void);
/// 0 in sanitizer builds, where malloc is not interposed and nothing is counted.
int atoll_allocations_available(void);
