#define _GNU_SOURCE
#include "CAtollShims.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int atoll_futex_wait(uint32_t *addr, uint32_t expected, int64_t timeoutNanoseconds) {
    struct timespec ts;
    struct timespec *tsp = NULL;
    if (timeoutNanoseconds >= 0) {
        ts.tv_sec = (time_t)(timeoutNanoseconds / 1000000000LL);
        ts.tv_nsec = (long)(timeoutNanoseconds % 1000000000LL);
        tsp = &ts;
    }
    long r = syscall(SYS_futex, addr, FUTEX_WAIT, expected, tsp, NULL, 0);
    if (r == 0) return 0;
    if (errno == EAGAIN) return 0; /* value already differed */
    return errno;
}

int atoll_futex_wake(uint32_t *addr, int32_t count) {
    long r = syscall(SYS_futex, addr, FUTEX_WAKE, count, NULL, NULL, 0);
    return r < 0 ? -errno : (int)r;
}

static int ofd_op(int fd, int cmd, short type, int64_t start, int64_t length) {
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)start;
    fl.l_len = (off_t)length;
    fl.l_pid = 0;
    for (;;) {
        if (fcntl(fd, cmd, &fl) == 0) return 0;
        if (errno == EINTR && cmd == F_OFD_SETLKW) continue;
        return errno;
    }
}

int atoll_ofd_lock(int fd, int exclusive, int wait, int64_t start, int64_t length) {
    return ofd_op(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, exclusive ? F_WRLCK : F_RDLCK, start, length);
}

int atoll_ofd_unlock(int fd, int64_t start, int64_t length) {
    return ofd_op(fd, F_OFD_SETLK, F_UNLCK, start, length);
}

int atoll_ofd_is_locked(int fd, int64_t start, int64_t length) {
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)start;
    fl.l_len = (off_t)length;
    fl.l_pid = 0;
    if (fcntl(fd, F_OFD_GETLK, &fl) != 0) return -errno;
    return fl.l_type == F_UNLCK ? 0 : 1;
}

int atoll_ofd_lowest_locked(int fd, int64_t start, int64_t length, int64_t *lowest) {
    // F_OFD_GETLK reports one conflicting lock, not necessarily the lowest: narrow the range to
    // below each lock found until none is left.
    int found = 0;
    int64_t end = start + length;
    while (end > start) {
        struct flock fl;
        memset(&fl, 0, sizeof fl);
        fl.l_type = F_WRLCK;
        fl.l_whence = SEEK_SET;
        fl.l_start = (off_t)start;
        fl.l_len = (off_t)(end - start);
        fl.l_pid = 0;
        if (fcntl(fd, F_OFD_GETLK, &fl) != 0) return -errno;
        if (fl.l_type == F_UNLCK) break;
        int64_t at = fl.l_start < start ? start : (int64_t)fl.l_start;
        *lowest = at;
        found = 1;
        end = at;
    }
    return found;
}

uint64_t atoll_atomic_load_u64(const uint64_t *addr) { return __atomic_load_n(addr, __ATOMIC_SEQ_CST); }
void atoll_atomic_store_u64(uint64_t *addr, uint64_t value) { __atomic_store_n(addr, value, __ATOMIC_SEQ_CST); }
int atoll_atomic_cas_u64(uint64_t *addr, uint64_t expected, uint64_t desired) {
    return __atomic_compare_exchange_n(addr, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
uint64_t atoll_atomic_fetch_add_u64(uint64_t *addr, uint64_t delta) { return __atomic_fetch_add(addr, delta, __ATOMIC_SEQ_CST); }
uint32_t atoll_atomic_load_u32(const uint32_t *addr) { return __atomic_load_n(addr, __ATOMIC_SEQ_CST); }
void atoll_atomic_store_u32(uint32_t *addr, uint32_t value) { __atomic_store_n(addr, value, __ATOMIC_SEQ_CST); }
int atoll_atomic_cas_u32(uint32_t *addr, uint32_t expected, uint32_t desired) {
    return __atomic_compare_exchange_n(addr, &expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
uint32_t atoll_atomic_fetch_add_u32(uint32_t *addr, uint32_t delta) { return __atomic_fetch_add(addr, delta, __ATOMIC_SEQ_CST); }
void atoll_atomic_fence(void) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* CRC32C: software slicing-by-8 tables, hardware path through the SSE4.2 crc32 instruction. */
static uint32_t crc_table[8][256];
static int crc_ready = 0;
static int crc_hw = 0;

static void crc_init(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc_table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = crc_table[0][n];
        for (int k = 1; k < 8; k++) {
            c = crc_table[0][c & 0xFF] ^ (c >> 8);
            crc_table[k][n] = c;
        }
    }
#if defined(__x86_64__)
    __builtin_cpu_init();
    crc_hw = __builtin_cpu_supports("sse4.2");
#endif
    __atomic_store_n(&crc_ready, 1, __ATOMIC_RELEASE);
}

static uint32_t crc_sw(uint32_t crc, const unsigned char *p, size_t n) {
    while (n && ((uintptr_t)p & 7)) { crc = crc_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8); n--; }
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        w ^= crc;
        crc = crc_table[7][w & 0xFF] ^ crc_table[6][(w >> 8) & 0xFF] ^ crc_table[5][(w >> 16) & 0xFF] ^
              crc_table[4][(w >> 24) & 0xFF] ^ crc_table[3][(w >> 32) & 0xFF] ^ crc_table[2][(w >> 40) & 0xFF] ^
              crc_table[1][(w >> 48) & 0xFF] ^ crc_table[0][w >> 56];
        p += 8; n -= 8;
    }
    while (n--) crc = crc_table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2")))
static uint32_t crc_hw_run(uint32_t crc, const unsigned char *p, size_t n) {
    uint64_t c = crc;
    while (n && ((uintptr_t)p & 7)) { c = __builtin_ia32_crc32qi((uint32_t)c, *p++); n--; }
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = __builtin_ia32_crc32di(c, w);
        p += 8; n -= 8;
    }
    while (n--) c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
    return (uint32_t)c;
}
#endif

uint32_t atoll_crc32c(uint32_t crc, const void *data, size_t length) {
    if (!__atomic_load_n(&crc_ready, __ATOMIC_ACQUIRE)) crc_init();
    uint32_t c = ~crc;
#if defined(__x86_64__)
    if (crc_hw) return ~crc_hw_run(c, (const unsigned char *)data, length);
#endif
    return ~crc_sw(c, (const unsigned char *)data, length);
}

int atoll_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0, 0, 0) == 0 ? 0 : errno;
}

int atoll_memfd_create(const char *name) {
    int fd = memfd_create(name, MFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int64_t atoll_thread_id(void) { return (int64_t)syscall(SYS_gettid); }

uint64_t atoll_monotonic_nanoseconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static __thread void *atoll_thread_slot = 0;
void *atoll_thread_slot_get(void) { return atoll_thread_slot; }
void atoll_thread_slot_set(void *value) { atoll_thread_slot = value; }

static __thread long atoll_managed_depth = 0;
static __thread long atoll_managed_slots = 0;
static __thread const void *atoll_managed_class = 0;
const void *atoll_managed_creation_enter(const void *cls) {
    const void *previous = atoll_managed_class;
    atoll_managed_depth += 1;
    atoll_managed_class = cls;
    return previous;
}
void atoll_managed_creation_leave(const void *previous) {
    atoll_managed_depth -= 1;
    atoll_managed_class = previous;
}
int atoll_managed_creation_active(void) { return atoll_managed_depth > 0; }
int atoll_managed_creation_is_target(const void *cls) { return cls == atoll_managed_class; }
long atoll_managed_creation_claim_slot(void) { return atoll_managed_depth > 0 ? atoll_managed_slots++ : -1; }
long atoll_managed_creation_release_slots(long count) {
    if (count > atoll_managed_slots) count = atoll_managed_slots;
    atoll_managed_slots -= count;
    return atoll_managed_slots;
}
