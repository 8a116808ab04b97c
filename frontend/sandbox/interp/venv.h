/* The venv cache (what llama-eval's `Sandbox` builds in its ensure step):
 * one venv per name under the cache root, rebuilt when its stamp (packages, base interpreter version,
 * provisioning content) no longer matches. Builds run unsandboxed as the
 * user, like llama-eval's `Sandbox`. */
#ifndef SBX_VENV_H
#define SBX_VENV_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

#define VENV_STAMP_NAME    ".sbx-stamp"
#define VENV_ERROR_TAIL    800          /* chars of pip's output in an error */

struct venv_request {
        const char *name;
        const char *base_python;
        const char *base_version;
        const char *const *packages;
        const char *const *provision;   /* file paths */
        bool rebuild;
        bool quiet;
        /* the note that a venv is being built goes here (sandbox.h's warn) */
        void (*warn)(const char *msg, void *ctx);
        void *warn_ctx;
};

/* $SBX_CACHE, else $LLAMA_EVAL_CACHE, else ~/.cache/sbx. malloc'd. */
char *venv_cache_root(void);
/* Returns 0 with *dir (malloc'd) holding a built, stamped venv. */
int venv_ensure(const struct venv_request *rq, char **dir, struct sbx_err *err);

/* Pure parts, unit tested. */
uint64_t venv_hash(const void *data, size_t len);         /* FNV-1a 64 */
bool venv_name_valid(const char *name);
/* The stamp: packages sorted and deduplicated; provision_hashes in order.
 * malloc'd. */
char *venv_stamp_text(const char *base_python, const char *version,
                      const char *const *packages,
                      const uint64_t *provision_hashes, size_t n_provision);

#endif
