/* SBX_TRACE=1: timestamps of sbx-run's phases on stderr, for finding where
 * a run's time goes (docs/performance.md). Read once; off, a mark costs a
 * branch. */
#ifndef SBX_TRACE_H
#define SBX_TRACE_H

#include <stdbool.h>

/* Reads SBX_TRACE once and takes the starting time. */
void sbx_trace_init(void);
bool sbx_trace_on(void);
/* CLOCK_MONOTONIC at the start, in ns: handed to the helper (SBX_TRACE in
 * its environment) so that its marks share this time line. */
long long sbx_trace_start_ns(void);
/* "sbx-run: trace  <ms since start>  <ms since the last mark>  phase" */
void sbx_trace(const char *phase);

#endif
