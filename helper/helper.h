/* sbx-helper: the setuid part of sbx. One file per phase of a run; main.c
 * calls them in order. The pure parts (request, config parsing) return
 * errors in a buffer so they can be unit tested; the rest die(). */
#ifndef SBX_HELPER_H
#define SBX_HELPER_H

/* The libc headers most phases use; each file adds its own others. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "cleanup.h"        /* auto_fd, auto_free, take_fd */

#define SBX_EXIT_SETUP 3
#define SBX_MAX_RO_BINDS 64
#define SBX_MAX_ENV 256
#define SBX_MAX_PREFIXES 32
#define SBX_ERRLEN 512
#define SBX_LIMIT_NONE UINT64_MAX       /* --memory none */

/* util.c: die (message and errno text to stderr, exit 3), the status line,
 * cleanup, paths */
struct outcome {                        /* the status line */
        const char *status;
        char nproc_mode[16];
        int exit_code, signal, helper_exit, wait_status;
        bool setup_failed, reaped;
        double wall_s, cpu_s;
        long max_rss_kb;
        long long memory_peak;          /* bytes; -1 without a memory cgroup */
        bool oom_killed;
        char message[SBX_ERRLEN];
};
__attribute__((noreturn, format(printf, 2, 3))) void die_with(int errnum, const char *fmt, ...);
#define die(...) die_with(0, __VA_ARGS__)
#define die_errno(...) die_with(errno, __VA_ARGS__)
/* Where die() also reports: the status fd, or the run's shared outcome. */
void die_report_to(int status_fd, struct outcome *shared);
/* For the pure parts: the message goes to err; returns -1. */
__attribute__((format(printf, 3, 4))) int set_error(char *err, size_t errlen, const char *fmt, ...);
void json_write_string(char *out, size_t outlen, const char *s);
int poll_timeout_ms(double left_ms);
int outcome_format(const struct outcome *out, char *line, size_t len);
bool path_is_clean(const char *path);
bool path_is_under(const char *path, const char *prefix);
typedef int (*path_step)(int parent, const char *name, bool last, void *arg);
int path_walk(int dirfd, const char *path, path_step step, void *arg);
int write_file_at(int dirfd, const char *path, const char *text);
ssize_t read_file_at(int dirfd, const char *path, char *buf, size_t len);
void trace_mark(long long base_ns, const char *phase);      /* SBX_TRACE */

/* request.c: argv -> struct request (pure) */
enum limit_id { LIM_TIMEOUT, LIM_CPU, LIM_MEMORY, LIM_NPROC, LIM_FSIZE, LIM_NOFILE, LIM_TMPFS, LIM_COUNT };
enum limit_unit { UNIT_MILLIS, UNIT_BYTES, UNIT_COUNT };
struct limit_desc {
        const char *option;     /* without "--" */
        const char *conf_key;   /* without default_ or max_ */
        enum limit_unit unit;
        bool none_allowed;
        uint64_t builtin_default, builtin_max;  /* when helper.conf leaves it out */
};
extern const struct limit_desc limit_descs[LIM_COUNT];

enum request_mode { MODE_RUN, MODE_PROBE, MODE_VERSION };
struct request {
        enum request_mode mode;
        const char *workdir;
        bool private_workdir;
        bool zygote;                    /* --zygote: argv is sbx's zygote (request.c) */
        const char *ro_binds[SBX_MAX_RO_BINDS];
        size_t n_ro_binds;
        const char *env[SBX_MAX_ENV];
        size_t n_env;
        int status_fd;
        bool limit_given[LIM_COUNT];
        uint64_t limit[LIM_COUNT];      /* ms for times, else bytes or counts */
        char *const *argv;              /* PROGRAM [ARG]... */
};
int parse_limit_value(enum limit_unit unit, bool none_allowed, const char *text, uint64_t *out);
int request_parse(struct request *rq, int argc, char *const argv[], char *err, size_t errlen);

/* config.c: the admin policy */
struct config {
        const char *path;
        char group[64];
        uint64_t deflt[LIM_COUNT], max[LIM_COUNT], max_zygote_life;  /* ms: --zygote's --timeout ceiling */
        char prefixes[SBX_MAX_PREFIXES][256];
        size_t n_prefixes;
        char pids_cgroup[256];          /* "" when unset */
        char memory_cgroup[256];        /* "" when unset; else the same as pids_cgroup if that is set */
};
void config_set_builtin(struct config *cfg);
int config_parse(struct config *cfg, const char *path, char *text, char *err, size_t errlen);
int config_load(struct config *cfg, char *err, size_t errlen);
/* Unasked limits from the defaults; asks above a ceiling refused (--zygote's --timeout: max_zygote_life). */
int config_apply_limits(const struct config *cfg, struct request *rq, char *err, size_t errlen);

/* privs.c: who the caller is, and dropping to them */
struct caller {
        uid_t uid;
        gid_t gid;
        pid_t parent;           /* the frontend: its death ends the sandbox */
        char name[64], home[256];
};
int privs_check_installed(char *err, size_t errlen);
int privs_identify_caller(const struct config *cfg, struct caller *who, char *err, size_t errlen);
void privs_drop_to(const struct caller *who);
void privs_clear_caps(uint64_t keep);
void privs_fs_identity(uid_t uid, gid_t gid);
void privs_become_root(uid_t real);

/* mounts.c: the sandbox's root */
void mounts_build_root(const struct request *rq, const struct config *cfg, const struct caller *who);

/* limits.c: rlimits, and the process count fallbacks */
void limits_set(int resource, const char *name, rlim_t soft, rlim_t hard);
void limits_apply_rlimits(const struct request *rq);
void limits_ipc_namespace(const struct request *rq);
int limits_count_processes(int host_proc_fd, uid_t uid);
struct run_cgroup {                     /* helper.conf's memory_cgroup, else pids_cgroup */
        const char *path;               /* NULL when not configured */
        int dir, host_ns;               /* it, and the cgroup namespace moves are made from */
        bool made, has_init;            /* init made the run's child; init is in it */
        char name[48];                  /* the run's own child: run-<helper pid>-<time> */
        char why[256];                  /* why it cannot be used */
};
bool run_cgroup_open(struct run_cgroup *cg, const char *path);
bool run_cgroup_usable(struct run_cgroup *cg, const char *controller);
bool run_cgroup_enter_pids(struct run_cgroup *cg, pid_t pid, uint64_t max);
bool run_cgroup_enter_memory(struct run_cgroup *cg, uint64_t max);
void run_cgroup_memory_stats(const struct run_cgroup *cg, long long *peak, bool *oom_killed);
void run_cgroup_remove(const struct run_cgroup *cg, char *msg, size_t msglen);

/* supervise.c and probe.c: a run, and --probe */
__attribute__((noreturn)) void supervise_run(const struct request *rq, const struct config *cfg,
                                             const struct caller *who, long long trace_ns);
__attribute__((noreturn)) void probe_run(void);

#endif
