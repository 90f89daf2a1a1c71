// The system zstd headers (apt: libzstd-dev). ZSTD_STATIC_LINKING_ONLY is deliberately not
// defined: everything used is in the stable API of libzstd >= 1.4.
#include <zstd.h>
#include <zdict.h>
