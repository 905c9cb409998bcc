#pragma once
// Counts the heap allocations of this process (operator new in every form, and malloc, calloc
// and realloc where the C library lets us wrap them), for the benchmarks' "allocations per
// steady-state step" figure (issue 10: the step must not allocate). Linked into impetus-bench
// only: replacing the global allocation functions is a whole-program decision.

namespace impetus::bench {

/// Allocations made so far by all threads (monotonic).
long long allocation_count();

/// True when malloc/calloc/realloc are counted as well as operator new (glibc, no sanitizer).
bool allocation_count_includes_malloc();

}  // namespace impetus::bench
