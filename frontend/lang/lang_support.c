/* A suite's support for a language, as data (one row per set and
 * language), readied once per session: the set's files copied into a
 * support directory of sbx's own (so that the helper binds it whatever its
 * ro_bind_prefix: the caller's own files are always allowed), a tarball
 * among them unpacked there in the sandbox, and a seed built once per user
 * in the sandbox and kept in the compile cache. Compiles and runs bind the
 * directory read-only. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang_impl.h"
#include "proc.h"
#include "util.h"

#define ARGV(...) ((const char *const[]){ __VA_ARGS__, NULL })
#define SUPPORT_FILE_MAX_BYTES (16LL << 20)

/* HumanEval-X's Go tests import testify (upstream's module, vendored).
 * Each compile builds in the module at one fixed path of its private
 * /tmp ($TMPDIR/m: the module's go.mod, go.sum and vendor/ linked from the
 * support dir, the source copied), with a GOCACHE of its own unpacked
 * from the seed: a writable cache is what go accepts, a copy keeps one
 * sample's compile from leaving anything for the next, and the fixed
 * path lets the seed's entries (testify built once, per user) serve every
 * compile: go keys its build cache by the packages' directories. */
#define GO_MODULE "mkdir -p \"$GOCACHE\" \"$TMPDIR/m\" && cd \"$TMPDIR/m\" && " \
        "ln -s \"$SBX_SUPPORT/go.mod\" \"$SBX_SUPPORT/go.sum\" \"$SBX_SUPPORT/vendor\" . && " \
        "cp \"$SBX_WORK/$SBX_SRC\" . && "
static const struct lang_seed go_seed = {
        .source_name = "main_test.go",
        .source = "package main\n\nimport (\n    \"testing\"\n"
                  "    \"github.com/stretchr/testify/assert\"\n)\n\n"
                  "func TestSeed(t *testing.T) { assert.New(t).Equal(1, 1) }\n",
        .argv = ARGV("/bin/sh", "-c", GO_MODULE "\"$0\" test -c -o prog main_test.go && "
                     "tar -cf \"$SBX_WORK/gocache.tar\" -C \"$GOCACHE\" .", "{compile_tool}"),
        .artifact = "gocache.tar",
};

/* HumanEval-X's Rust programs use rand, regex and md5: cargo builds them
 * once, offline, from Debian's crate sources, and each compile links
 * them (--extern). */
static const struct lang_seed rust_seed = {
        .tool = "cargo",
        .version_argv = ARGV("{tool}", "--version"),
        .argv = ARGV("/bin/sh", "-c",
                     "mkdir -p src .cargo && cp \"$1\" Cargo.toml && "
                     "echo 'fn main() {}' > src/main.rs && "
                     "printf '%s\\n' '[source.crates-io]' 'replace-with = \"debian\"' "
                     "'[source.debian]' 'directory = \"/usr/share/cargo/registry\"' "
                     "> .cargo/config.toml && "
                     "\"$0\" build --offline --quiet -j 2 && cp target/debug/deps/*.rlib .",
                     "{tool}", "{support}/Cargo.toml"),
        .artifact = "*.rlib",
        .key_dir = "/usr/share/cargo/registry",
        .externs = ARGV("rand", "regex", "md5"),
};

static const struct lang_support_row rows[] = {
        { .set = "humaneval-x", .language = "go-test",
          .files = ARGV("go.mod", "go.sum", "vendor.tar.gz"), .unpack = "vendor.tar.gz",
          .compile_prelude = GO_MODULE "tar -xf \"$SBX_SUPPORT/gocache.tar\" -C \"$GOCACHE\" && "
                             "exec \"$@\"",
          .compile_env = ARGV("GOFLAGS=-mod=vendor"), .bind_compile = true,
          .seed = &go_seed },
        { .set = "humaneval-x", .language = "rust-test", .files = ARGV("Cargo.toml"),
          .bind_compile = true, .seed = &rust_seed },
        /* upstream's js-md5 from npm -g; vendored, found through NODE_PATH */
        { .set = "humaneval-x", .language = "js", .files = ARGV("js-md5.js"),
          .run_env = ARGV("NODE_PATH={support}"), .bind_run = true },
};

const struct lang_support_row *lang_support_find(const char *set, const char *language)
{
        for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
                if (!strcmp(rows[i].set, set) && !strcmp(rows[i].language, language))
                        return &rows[i];
        return NULL;
}

void lang_support_free(struct lang_support *s)
{
        if (!s)
                return;
        strvec_free(&s->compile_env);
        strvec_free(&s->run_env);
        strvec_free(&s->extra);
        free(s->dir);           /* the session's scratch goes with the sandbox */
        free(s);
}

/* One shipped file into the support dir, its bytes into the key. */
static int copy_in(const char *from_dir, const char *to_dir, const char *name,
                   struct lang_cache_key *key, struct sbx_err *err)
{
        auto_free char *src = NULL, *dst = NULL;
        char buf[65536];
        long long total = 0;
        ssize_t n;

        if (asprintf(&src, "%s/%s", from_dir, name) < 0 || asprintf(&dst, "%s/%s", to_dir, name) < 0)
                return sbx_fail_oom(err, "support");
        auto_fd in = open(src, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (in < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", src);
        auto_fd out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (out < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", dst);
        lang_cache_key_add_str(key, "file", name);
        while ((n = read(in, buf, sizeof(buf))) != 0) {
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 || (total += n) > SUPPORT_FILE_MAX_BYTES)
                        return sbx_fail_code(err, SBX_EXIT_SANDBOX, n < 0 ? errno : EFBIG, "%s", src);
                lang_cache_key_add(key, "bytes", buf, (size_t)n);
                if (sbx_write_all(out, buf, (size_t)n) < 0)
                        return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", dst);
        }
        return 0;
}

/* The tarball unpacked in the support dir by tar in the sandbox (it is
 * shipped data, but nothing of a tar's names is trusted on the host). */
static int unpack(struct lang_session *ls, struct lang_support *s, struct sbx_err *err)
{
        auto_free char *tar = proc_find_exe("tar", SANDBOX_PATH);
        const struct lang_row *row = lang_find(s->row->language);
        struct run_result res;

        if (!tar)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "no tar in %s", SANDBOX_PATH);
        char *argv[] = { tar, "-xzf", (char *)s->row->unpack, "--no-same-owner", NULL };
        struct run_spec spec = {
                .argv = argv, .workdir = s->dir, .timeout_ms = row->compile_limits.time_ms,
                .memory_bytes = row->compile_limits.memory_bytes,
                .fsize_bytes = row->compile_limits.fsize_bytes,
        };
        if (lang_sync_run(ls, &spec, &res, err) < 0)
                return -1;
        int ok = res.status == RUN_OK;
        if (!ok) {
                auto_free char *tail = lang_output_tail(&res, 400);
                sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "unpacking %s: %s", s->row->unpack,
                              tail ? tail : run_status_name(res.status));
        }
        run_result_free(&res);
        return ok ? 0 : -1;
}

/* --extern NAME=<dir>/libNAME-<hash>.rlib for each crate: exactly one. */
static int add_externs(struct lang_support *s, const char *const *crates, struct sbx_err *err)
{
        int rc = strvec_extend(&s->extra, ARGV("-L"));

        rc |= strvec_pushf(&s->extra, "dependency=%s", s->dir);
        for (; !rc && crates && *crates; crates++) {
                auto_free char *found = NULL;
                char prefix[64];
                DIR *d = opendir(s->dir);
                struct dirent *e;
                int n = 0;
                snprintf(prefix, sizeof(prefix), "lib%s-", *crates);
                while (d && (e = readdir(d)))
                        if (!strncmp(e->d_name, prefix, strlen(prefix)) &&
                            lang_artifact_match("*.rlib", e->d_name) && ++n == 1)
                                found = strdup(e->d_name);
                if (d)
                        closedir(d);
                if (n != 1 || !found)
                        return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "%d rlibs for crate %s "
                                             "in %s (one expected)", n, *crates, s->dir);
                rc |= strvec_push(&s->extra, "--extern");
                rc |= strvec_pushf(&s->extra, "%s=%s/%s", *crates, s->dir, found);
        }
        return rc ? sbx_fail_oom(err, "support") : 0;
}

/* Templates with {support} filled. */
static int expand_support(const char *const *tmpl, const char *dir, struct strvec *out)
{
        const char *mark = "{support}";

        for (; tmpl && *tmpl; tmpl++) {
                const char *at = strstr(*tmpl, mark);
                int rc = at ? strvec_pushf(out, "%.*s%s%s", (int)(at - *tmpl), *tmpl, dir,
                                           at + strlen(mark))
                            : strvec_push(out, *tmpl);
                if (rc < 0)
                        return -1;
        }
        return 0;
}

int lang_support_prepare(struct lang_session *ls, const struct lang_row *row,
                         const struct lang_support_row *srow, struct lang_support **out,
                         struct sbx_err *err)
{
        struct lang_support *s = calloc(1, sizeof(*s));
        struct lang_cache_key key;
        int rc = -1;

        if (!s)
                return sbx_fail_oom(err, "support");
        s->row = srow;
        if (!ls->opts.support_dir) {
                sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "no support directory given");
                goto out;
        }
        if (!(s->dir = sandbox_mkdtemp(ls->sb, err)))
                goto out;
        lang_cache_key_init(&key);
        lang_cache_key_add_str(&key, "set", srow->set);
        lang_cache_key_add_str(&key, "language", srow->language);
        for (const char *const *f = srow->files; f && *f; f++)
                if (copy_in(ls->opts.support_dir, s->dir, *f, &key, err) < 0)
                        goto out;
        if (srow->unpack && unpack(ls, s, err) < 0)
                goto out;
        if (expand_support(srow->compile_env, s->dir, &s->compile_env) < 0 ||
            expand_support(srow->run_env, s->dir, &s->run_env) < 0) {
                sbx_fail_oom(err, "support");
                goto out;
        }
        if (srow->seed && lang_seed_ready(ls, row, s, &key, err) < 0)
                goto out;
        if (srow->seed && srow->seed->externs && add_externs(s, srow->seed->externs, err) < 0)
                goto out;
        lang_cache_key_hex(&key, s->key);
        rc = 0;
out:
        if (rc < 0)
                lang_support_free(s);
        else
                *out = s;
        return rc;
}
