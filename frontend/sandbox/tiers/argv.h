/* Building the argv of each tier from precomputed parts. Pure: no system
 * calls, so every tier's argv is unit tested (tests/unit/frontend_argv.c).
 * Each tier's own part is in its row of tier.c (tier_ops.h). */
#ifndef SBX_ARGV_H
#define SBX_ARGV_H

#include <stdbool.h>
#include <stddef.h>

#include "tier.h"
#include "util.h"           /* struct strvec */

/* The fds the child sees besides 0, 1, 2 (proc.c puts them there). */
#define CHILD_FD_EXTRA    3     /* helper: status fd; bwrap: seccomp BPF */
#define CHILD_FD_STATUS2  4     /* bwrap: --json-status-fd */
#define CHILD_FD_DATA     5     /* bwrap: a run's file, --ro-bind-data */
#define CHILD_FD_INIT     6     /* bwrap: sbx-run-init, the run's pid 1 */
/* The run's pid 1 where the tier runs sbx's own (tier_ops.runs_init):
 * sbx-run-init on CHILD_FD_INIT, exec'd by bwrap inside the sandbox. */
#define RUN_INIT_PATH     "/proc/self/fd/6"
#define RUN_INIT_ARG      "--exec"
/* bwrap's root tmpfs holds only mount points and symlinks, and is
 * remounted read-only before the program starts. */
#define BWRAP_ROOT_BYTES  (1LL << 20)

/* The unshare tiers' start marker: inside the new namespaces the system
 * shell writes START_MARKER to CHILD_FD_EXTRA and execs the program with
 * that fd closed. No marker: unshare never got as far as the program, so
 * the run is the tier's probe (the program cannot write it: the fd is
 * closed before it starts). dash exports PWD, which the program would not
 * otherwise see: unset. */
#define START_SHELL       "/bin/sh"
#define START_MARKER      "sbx-start"
#define START_SCRIPT      "unset PWD; echo " START_MARKER " >&3; exec \"$@\" 3>&-"

/* A top-level host directory for bwrap's allow-listed root: a symlink
 * (/bin -> usr/bin on merged-/usr hosts) is recreated, a directory bound. */
struct host_dir {
        const char *path;
        const char *link_target;        /* NULL: a directory */
};

struct tier_params {
        const char *tool;               /* helper, bwrap or unshare binary */
        const struct host_dir *root_dirs;
        size_t n_root_dirs;
        const char *const *binds;       /* read-only, NULL-terminated */
        long long memory_bytes;         /* -1 none */
        long long fsize_bytes;
        long long tmpfs_bytes;          /* /tmp and private workdirs */
        bool seccomp;                   /* bwrap: BPF on CHILD_FD_EXTRA */
};

struct run_params {
        const char *workdir;
        bool private_workdir;
        const char *const *workdir_files;
        /* workdir_files[0]'s bytes are on CHILD_FD_DATA: workdir is a path
         * inside the sandbox only (bwrap copies the file in) */
        bool workdir_data;
        long long timeout_ms;
        long long cpu_s;
        long long tmpfs_bytes;
        char *const *env;               /* helper only: passed as --env */
        char *const *argv;
        /* the run's own limits where they differ from the session's (0:
         * the session's, in the prefix; the helper takes a limit's last
         * value, so the run's replaces the prefix's), and its own
         * read-only binds */
        long long memory_bytes;         /* -1: none */
        long long fsize_bytes;
        const char *const *ro_binds;
};

/* A warm suite's zygote (docs/warm.md): how long it may live, its CPU,
 * memory and process ceilings, its environment (the helper's --env pairs) and
 * its argv (PYTHON -I -B -c SOURCE). */
struct zygote_params {
        long long lifetime_ms, cpu_s, nproc;    /* nproc 0: the tier's default */
        long long memory_bytes;                 /* -1: none */
        char *const *env;
        char *const *argv;
};

/* The session-wide part, computed once by sandbox_open (tier.c, through
 * the tier's row). */
int tier_build_prefix(enum tier t, const struct tier_params *p,
                      struct strvec *out);
/* prefix + the per-run part: workdir, limits, "--", argv. */
int tier_build_argv(enum tier t, const struct strvec *prefix,
                    const struct run_params *rp, struct strvec *out);

/* OPT and N as two words. */
int argv_push_num(struct strvec *v, const char *opt, long long n);

/* A run's environment: the session's (base + user pairs), then HOME and
 * TMPDIR = workdir, then the run's extras; where a NAME repeats, the later
 * one wins, so HOME/TMPDIR are the workdir unless the run's extras say
 * otherwise. */
int env_build(const char *const *session_env, const char *workdir,
              const char *const *extra, struct strvec *env);
/* "{venv}" in a NAME=VALUE pair becomes the venv path ("" without one). */
char *env_expand_venv(const char *pair, const char *venv);

#endif
