/* --probe: can this helper run a sandbox here, for this caller? JSON on
 * stdout; exit 0 only when it can. */
#include "helper.h"

static void print_str(const char *before, const char *s)
{
        char esc[2 * SBX_ERRLEN];

        json_write_string(esc, sizeof(esc), s);
        printf("%s\"%s\"", before, esc);
}

static void print_limits(const char *before, const uint64_t *values)
{
        printf("%s{", before);
        for (int i = 0; i < LIM_COUNT; i++) {
                const char *sep = i ? "," : "";

                if (values[i] == SBX_LIMIT_NONE)
                        printf("%s\"%s\":null", sep, limit_descs[i].conf_key);
                else if (limit_descs[i].unit == UNIT_MILLIS)
                        printf("%s\"%s\":%.3f", sep, limit_descs[i].conf_key, (double)values[i] / 1000.0);
                else
                        printf("%s\"%s\":%llu", sep, limit_descs[i].conf_key, (unsigned long long)values[i]);
        }
        printf("}");
}

static void print_config(const struct config *cfg, bool valid, const char *error)
{
        print_str(",\"config\":{\"path\":", cfg->path);
        printf(",\"valid\":%s", valid ? "true" : "false");
        print_str(",\"error\":", error);
        print_str(",\"group\":", cfg->group);
        print_limits(",\"defaults\":", cfg->deflt);
        print_limits(",\"ceilings\":", cfg->max);
        printf(",\"max_zygote_life\":%.3f,\"ro_bind_prefixes\":[", (double)cfg->max_zygote_life / 1000.0);
        for (size_t i = 0; i < cfg->n_prefixes; i++)
                print_str(i ? "," : "", cfg->prefixes[i]);
        printf("],\"allow_network\":false}");
}

/* A configured cgroup: null, or where, and whether and why not usable. */
static void print_cgroup(const char *before, const struct run_cgroup *cg, bool usable)
{
        printf("%s%s", before, cg->path ? "" : "null");
        if (!cg->path)
                return;
        print_str("{\"path\":", cg->path);
        print_str(usable ? ",\"usable\":true,\"why_not\":" : ",\"usable\":false,\"why_not\":", cg->why);
        printf("}");
}

/* What --memory bounds, and what it does not, with and without the run's
 * memory cgroup. */
static void print_memory_bound(const struct run_cgroup *mem, bool usable)
{
        printf("\"memory\":{\"cgroup\":%s", usable ? "true" : "false");
        print_cgroup(",\"memory_cgroup\":", mem, usable);
        printf(",\"bounded\":[\"address space of each process (RLIMIT_AS)\","
               "\"SysV shared memory, all segments together (shmall, shmmax, shmmni 8)\","
               "\"SysV semaphores (kernel.sem 32 256 32 8) and message queues (msgmni 8)\"%s],"
               "\"tmpfs\":\"one tmpfs of tmpfs_size (one inode per 2 KiB) for /tmp, /dev/shm, home and a private workdir\",",
               usable ? ",\"all the run's memory together (memory.max, no swap): page cache, kernel memory, "
                        "shm, memfd and tmpfs pages it faults in\"" : "");
        printf(usable ? "\"not_bounded\":[]}" : "\"not_bounded\":[\"page cache\",\"kernel memory (pipes, sockets, page tables)\","
               "\"memfd, unless the seccomp policy denies memfd_create\"]}");
}

void probe_run(void)
{
        char err[SBX_ERRLEN] = "", conf_err[SBX_ERRLEN] = "", who_err[SBX_ERRLEN] = "";
        struct run_cgroup cg, mem;
        struct config cfg;
        struct caller who;
        uid_t caller_uid = getuid();    /* before the user namespace below */
        gid_t gid = getgid();
        bool setuid_ok = privs_check_installed(err, sizeof(err)) == 0;
        bool conf_ok = config_load(&cfg, conf_err, sizeof(conf_err)) == 0;
        bool allowed = conf_ok && privs_identify_caller(&cfg, &who, who_err, sizeof(who_err)) == 0;
        bool cg_ok = run_cgroup_open(&cg, conf_ok ? cfg.pids_cgroup : "") && run_cgroup_usable(&cg, "pids");
        bool mem_ok = run_cgroup_open(&mem, conf_ok ? cfg.memory_cgroup : "") && run_cgroup_usable(&mem, "memory");
        /* Whether the caller may create a user namespace: the kernel's answer, asked
         * as the caller (sysctls, LSMs and seccomp can all say no). Ends our root. */
        bool userns = setresgid(gid, gid, gid) == 0 && setresuid(caller_uid, caller_uid, caller_uid) == 0 &&
                      unshare(CLONE_NEWUSER) == 0;
        bool ok = setuid_ok && conf_ok && allowed;

        printf("{\"version\":\"%s\",\"ok\":%s", SBX_VERSION, ok ? "true" : "false");
        print_str(",\"reason\":", !setuid_ok ? err : !conf_ok ? conf_err : !allowed ? who_err : "");
        printf(",\"installed_setuid\":%s", setuid_ok ? "true" : "false");
        print_config(&cfg, conf_ok, conf_err);
        printf(",\"host\":{\"user_namespaces\":%s,\"nproc_mode\":\"%s\"",
               userns ? "true" : "false", userns ? "userns" : cg_ok ? "cgroup" : "rlimit");
        print_cgroup(",\"pids_cgroup\":", &cg, cg_ok);
        printf(",\"seccomp\":true,\"network\":\"loopback only\",");
        print_memory_bound(&mem, mem_ok);
        printf("},\"caller\":{\"uid\":%u,\"allowed\":%s}}\n", (unsigned)caller_uid, allowed ? "true" : "false");
        exit(ok ? 0 : SBX_EXIT_SETUP);
}
