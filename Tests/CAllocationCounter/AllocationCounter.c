#define _GNU_SOURCE
#include "CAllocationCounter.h"
#include <errno.h>
#include <stddef.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

// Under a sanitizer, which brings its own allocator, malloc is not interposed: memory from
// glibc's allocator freed through the sanitizer's (or the reverse) would crash the process.
// SwiftPM links this target into the test bundle too (AtollQueryTests depends on
// AtollQueryProbe), so a `swift test --sanitize=thread` run needs this.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define ATOLL_ALLOCATION_COUNTER_OFF 1
#endif
#endif

static int counting;
static uint64_t allocations;

static inline void count(void) {
    if (__atomic_load_n(&counting, __ATOMIC_RELAXED)) __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
}

void atoll_allocations_start(void) {
    __atomic_store_n(&allocations, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&counting, 1, __ATOMIC_SEQ_CST);
}

uint64_t atoll_allocations_stop(void) {
    __atomic_store_n(&counting, 0, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&allocations, __ATOMIC_SEQ_CST);
}

int atoll_allocations_available(void) {
#ifdef ATOLL_ALLOCATION_COUNTER_OFF
    return 0;
#else
    return 1;
#endif
}

#ifndef ATOLL_ALLOCATION_COUNTER_OFF

void *malloc(size_t size) { count(); return __libc_malloc(size); }
void *calloc(size_t n, size_t size) { count(); return __libc_calloc(n, size); }
void *realloc(void *p, size_t size) { count(); return __libc_realloc(p, size); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
void *aligned_alloc(size_t alignment, size_t size) { count(); return __libc_memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    count();
    void *p = __libc_memalign(alignment, size);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
#endif
