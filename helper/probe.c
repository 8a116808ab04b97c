/* --probe: can this helper run a sandbox here, for this caller? JSON on
 * stdout; exit 0 only when it can. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helper.h"

static void print_limits(const char *name, const uint64_t *values)
{
        printf("\"%s\":{", name);
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
        char esc[2 * SBX_ERRLEN];

        json_write_string(esc, sizeof(esc), cfg->path);
        printf("\"config\":{\"path\":\"%s\",\"valid\":%s,", esc, valid ? "true" : "false");
        json_write_string(esc, sizeof(esc), error);
        printf("\"error\":\"%s\",", esc);
        json_write_string(esc, sizeof(esc), cfg->group);
        printf("\"group\":\"%s\",", esc);
        print_limits("defaults", cfg->deflt);
        printf(",");
        print_limits("ceilings", cfg->max);
        printf(",\"ro_bind_prefixes\":[");
        for (size_t i = 0; i < cfg->n_prefixes; i++) {
                json_write_string(esc, sizeof(esc), cfg->prefixes[i]);
                printf("%s\"%s\"", i ? "," : "", esc);
        }
        printf("],\"allow_network\":false}");
}

/* Whether the caller may create a user namespace: the kernel's answer, asked
 * as the caller (sysctls, LSMs and seccomp can all say no). Ends our root. */
static bool caller_gets_userns(void)
{
        gid_t gid = getgid();
        uid_t uid = getuid();

        return setresgid(gid, gid, gid) == 0 && setresuid(uid, uid, uid) == 0 && unshare(CLONE_NEWUSER) == 0;
}

void probe_run(void)
{
        char err[SBX_ERRLEN] = "", conf_err[SBX_ERRLEN] = "", who_err[SBX_ERRLEN] = "";
        char reason[2 * SBX_ERRLEN] = "";
        struct config cfg;
        struct caller who;
        bool setuid_ok = privs_check_installed(err, sizeof(err)) == 0;
        bool conf_ok = config_load(&cfg, conf_err, sizeof(conf_err)) == 0;
        bool allowed = conf_ok && privs_identify_caller(&cfg, &who, who_err, sizeof(who_err)) == 0;
        bool userns = caller_gets_userns();
        bool ok = setuid_ok && conf_ok && allowed;

        if (!setuid_ok)
                json_write_string(reason, sizeof(reason), err);
        else if (!conf_ok)
                json_write_string(reason, sizeof(reason), conf_err);
        else if (!allowed)
                json_write_string(reason, sizeof(reason), who_err);
        printf("{\"version\":\"%s\",\"ok\":%s,\"reason\":\"%s\",\"installed_setuid\":%s,",
               SBX_VERSION, ok ? "true" : "false", reason, setuid_ok ? "true" : "false");
        print_config(&cfg, conf_ok, conf_err);
        printf(",\"host\":{\"user_namespaces\":%s,\"nproc_mode\":\"%s\",\"seccomp\":true,"
               "\"network\":\"loopback only\"},", userns ? "true" : "false", userns ? "userns" : "rlimit");
        printf("\"caller\":{\"uid\":%u,\"allowed\":%s}}\n", (unsigned)getuid(), allowed ? "true" : "false");
        exit(ok ? 0 : SBX_EXIT_SETUP);
}
