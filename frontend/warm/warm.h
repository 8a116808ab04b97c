/* Warm suites (docs/warm.md): a pool of zygotes, one per run in flight,
 * each a sandbox of the session's tier running sbx's trusted zygote, which
 * forks every sample into fresh namespaces of its own. run.c calls in here
 * for a session opened with warm set; a run the pool cannot serve runs
 * cold. Library-internal. */
#ifndef SBX_WARM_H
#define SBX_WARM_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "err.h"
#include "sandbox.h"

struct sbx_run;
struct warm_pool;

/* Sends spec to a zygote (started if none is free): 1 when the run is in
 * flight warm (r's out, err and status fds set), 0 when it is to run cold
 * (the reason counted for the summary), -1 on an error of sbx-run's own. */
int warm_run_start(struct sandbox *sb, const struct run_spec *spec, struct sbx_run *r,
                   struct sbx_err *err);
/* After a warm run's fds are all at EOF without a status line: its zygote
 * died. Sends it again to a fresh zygote (1), or gives up on warm runs for
 * it (0: run it cold). */
int warm_run_again(struct sbx_run *r);
/* The run's status line said setup-error: the zygote cannot isolate a
 * sample here (a host that refuses its mounts); warm runs are given up for
 * the session, and this one runs cold. */
void warm_run_fail_setup(struct sbx_run *r, const char *message);
/* The spec a warm run was started with (copied), to run it cold. */
const struct run_spec *warm_run_spec(const struct sbx_run *r);
struct warm_spec;
void warm_spec_free(struct warm_spec *w);
/* Kills the run's zygote (a deadline passed, or a stop). */
void warm_run_kill(struct sbx_run *r);
/* The run is over: its zygote serves the next one. */
void warm_run_release(struct sbx_run *r);
/* The live zygotes' pids, for the orphan sweep to keep; returns how many
 * were added to keep[*n..max). */
void warm_keep_pids(const struct sandbox *sb, pid_t *keep, size_t *n, size_t max);
/* Closes every zygote's control socket and reaps them. */
void warm_pool_close(struct sandbox *sb);
/* workers: how many warm runs will be in flight at once; the first starts
 * that many zygotes together. */
void warm_expect(struct sandbox *sb, size_t workers);
/* How many runs went warm and cold, and the first reason one went cold
 * (NULL: none did). */
void warm_counts(const struct sandbox *sb, size_t *warm, size_t *cold, const char **why);

#endif
