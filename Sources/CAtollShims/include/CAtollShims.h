// CAtollShims: the few Glibc facilities Swift cannot import directly (variadic
// syscalls, _GNU_SOURCE constants) plus hardware CRC32C and atomics on raw
// pointers into shared mappings. Every function is a thin, non-variadic wrapper.
#ifndef CATOLLSHIMS_H
#define CATOLLSHIMS_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: futex on a 32-bit word in a MAP_SHARED mapping (works across processes).

/// Waits while *addr == expected, for at most timeoutNanoseconds (negative: forever).
/// Returns 0 when woken or when the value differed, ETIMEDOUT on timeout, EINTR on a signal.
int atoll_futex_wait(uint32_t *addr, uint32_t expected, int64_t timeoutNanoseconds);
/// Wakes up to count waiters on addr. Returns the number woken or -errno.
int atoll_futex_wake(uint32_t *addr, int32_t count);

// MARK: open-file-description record locks (released when the description closes or the process dies).

/// Takes a lock on [start, start+length). exclusive: write lock. wait: block until granted.
/// Returns 0, or errno (EAGAIN / EACCES when busy and !wait, EINTR when interrupted).
int atoll_ofd_lock(int fd, int exclusive, int wait, int64_t start, int64_t length);
/// Releases a lock on [start, start+length). Returns 0 or errno.
int atoll_ofd_unlock(int fd, int64_t start, int64_t length);
/// Tests whether some other open file description holds a lock conflicting with a write lock
/// on [start, start+length). Returns 1 if locked elsewhere, 0 if free, -errno on error.
int atoll_ofd_is_locked(int fd, int64_t start, int64_t length);
/// The lowest offset in [start, start+length) at which another open file description holds a
/// lock (conflicting with a write lock), in *lowest. Returns 1 if found, 0 if none, -errno on error.
int atoll_ofd_lowest_locked(int fd, int64_t start, int64_t length, int64_t *lowest);

// MARK: Swift concurrency: is the current task running on a given serial executor?

/// The Swift runtime's own check (exported, ABI-stable: the standard library's inlinable
/// `assumeIsolated` and `Task.immediate` call it). An `UnownedSerialExecutor` is the pair
/// (identity, implementation); flags 0 asks for an answer, never a crash.
__attribute__((swiftcall)) extern _Bool swift_task_isCurrentExecutorWithFlags(const void *identity, uintptr_t implementation, uint64_t flags);
/// Whether the calling code runs isolated to the executor (identity, implementation).
static inline int atoll_is_current_executor(const void *identity, uintptr_t implementation) {
    return swift_task_isCurrentExecutorWithFlags(identity, implementation, 0) ? 1 : 0;
}

// MARK: sequentially consistent atomics on raw pointers (shared memory).

uint64_t atoll_atomic_load_u64(const uint64_t *addr);
void atoll_atomic_store_u64(uint64_t *addr, uint64_t value);
int atoll_atomic_cas_u64(uint64_t *addr, uint64_t expected, uint64_t desired);
uint64_t atoll_atomic_fetch_add_u64(uint64_t *addr, uint64_t delta);
uint32_t atoll_atomic_load_u32(const uint32_t *addr);
void atoll_atomic_store_u32(uint32_t *addr, uint32_t value);
int atoll_atomic_cas_u32(uint32_t *addr, uint32_t expected, uint32_t desired);
uint32_t atoll_atomic_fetch_add_u32(uint32_t *addr, uint32_t delta);
void atoll_atomic_fence(void);
/// Acquire load / release store, inlined into Swift callers (hot paths: the decrypted page
/// cache's per-access state check).
static inline uint64_t atoll_load_acquire_u64(const uint64_t *addr) { return __atomic_load_n(addr, __ATOMIC_ACQUIRE); }
static inline void atoll_store_release_u64(uint64_t *addr, uint64_t value) { __atomic_store_n(addr, value, __ATOMIC_RELEASE); }
/// Relaxed load / fetch-or, inlined: bit sets that several threads may fill at once, where a
/// bit only records a fact about immutable data (no ordering needed, but no data race either).
static inline uint64_t atoll_load_relaxed_u64(const uint64_t *addr) { return __atomic_load_n(addr, __ATOMIC_RELAXED); }
static inline void atoll_fetch_or_relaxed_u64(uint64_t *addr, uint64_t bits) { (void)__atomic_fetch_or(addr, bits, __ATOMIC_RELAXED); }

// MARK: CRC32C (Castagnoli), hardware-accelerated where the CPU has SSE4.2.

/// Continues a CRC32C: pass 0 to start. The result is the finished (final-xored) value.
uint32_t atoll_crc32c(uint32_t crc, const void *data, size_t length);

// MARK: process helpers.

/// Asks the kernel to send `signal` to this process when its parent exits (test helpers).
int atoll_set_parent_death_signal(int signal);
/// Current thread id (gettid).
int64_t atoll_thread_id(void);
/// memfd_create(name, MFD_CLOEXEC): an anonymous file living in memory. Returns fd or -errno.
int atoll_memfd_create(const char *name);
/// A per-thread pointer slot (used for the object layer's init context): a C __thread
/// variable, cheaper than pthread_getspecific.
void *atoll_thread_slot_get(void);
void atoll_thread_slot_set(void *value);
/// Per-thread counters of the object layer's managed-object creation (see InitContext.swift):
/// enter/leave nest it; inside it, each property wrapper claims a slot (-1 outside), and each
/// object releases its wrappers' slots and gets the index of its first one. `enter` takes the
/// class being made and returns the enclosing creation's, which `leave` restores; `is_target`
/// tells the object being made from objects its properties' default values make meanwhile.
const void *atoll_managed_creation_enter(const void *cls);
void atoll_managed_creation_leave(const void *previous);
int atoll_managed_creation_active(void);
int atoll_managed_creation_is_target(const void *cls);
long atoll_managed_creation_claim_slot(void);
long atoll_managed_creation_release_slots(long count);
/// CLOCK_MONOTONIC in nanoseconds.
uint64_t atoll_monotonic_nanoseconds(void);

#ifdef __cplusplus
}
#endif
#endif
