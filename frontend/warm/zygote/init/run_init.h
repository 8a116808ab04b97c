/* sbx-run-init: pid 1 of a warm run (docs/warm.md, "Who runs what"), and,
 * with --exec, of a cold bwrap run (exec.c). The
 * zygote spawns it per sample; as B0 it makes the run's namespaces and its
 * root, forks B1, the run's init (pid 1 of the run's pid namespace), and
 * waits for it. B1 mounts the run's /proc, confines itself and reaps until
 * the zygote says the candidate C has ended. Trusted code of sbx's own:
 * static, no sample code ever runs in it. Its request is its argv (paths
 * and numbers; no program text). */
#ifndef SBX_RUN_INIT_H
#define SBX_RUN_INIT_H

#include <stdbool.h>
#include <sys/types.h>

#define INIT_MAX_HOMES 4
#define INIT_MAX_BINDS 64
#define INIT_MAX_FILES 64               /* the zygote's MAX_FILES */
#define INIT_TMPFS_INODE_BYTES 2048     /* one inode per 2 KiB, as helper/mounts.c */
#define INIT_SETUP_EXIT 127
#define INIT_SCRATCH ".sbx-tmpfs"

struct init_file { const char *name; int fd; };

struct init_request {
        int info_fd;            /* E, R and W lines to the zygote */
        pid_t parent;           /* the zygote: not B0's parent any more, it has died */
        int end_fd;             /* hung up: C has ended (or the zygote died) */
        int bpf_fd;             /* the cold path's seccomp program */
        uid_t uid;              /* the zygote's ids: root of the run's user namespace */
        gid_t gid;
        long long shm_bytes;
        long long tmpfs_bytes;
        const char *cwd;
        const char *homes[INIT_MAX_HOMES];      /* covered by the run's tmpfs */
        int nhomes;
        const char *tmp_dirs[INIT_MAX_HOMES];   /* homes under /tmp, made in it */
        int ntmp_dirs;
        const char *binds[INIT_MAX_BINDS];      /* put back on top of the tmpfs */
        int nbinds;
        struct init_file files[INIT_MAX_FILES]; /* copied into cwd, read-only */
        int nfiles;
};

/* util.c: the one error path. Writes "E what[: strerror]" to the info fd
 * and exits INIT_SETUP_EXIT. */
void init_report_to(int info_fd);
__attribute__((noreturn, format(printf, 2, 3))) void init_die(int errnum, const char *fmt, ...);
void init_write_line(const char *line);

/* request.c */
void init_parse(int argc, char **argv, struct init_request *rq);

/* ns.c: B0, just after unshare: what makes the namespaces the run's. */
void init_enter_namespaces(const struct init_request *rq);

/* root.c */
void init_build_root(const struct init_request *rq);
void init_mount_proc(void);

/* confine.c */
void init_drop_privileges(void);
void init_confine(int bpf_fd);
/* Dies unless every capability set is empty and no_new_privs is set. */
void init_check_confined(void);

/* exec.c: `sbx-run-init --exec PROGRAM [ARG]...`, a cold bwrap run's pid 1. */
__attribute__((noreturn)) void init_exec(char **argv);

/* reap.c: B1's end. */
__attribute__((noreturn)) void init_reap(int end_fd);

#endif
