/* The interpreter: resolving --python, asking it where it lives, and the
 * read-only binds a sandbox needs to run it wherever it is installed.
 * interp.c calls into interp_cache.c, never the other way. */
#ifndef SBX_INTERP_H
#define SBX_INTERP_H

#include <stdbool.h>
#include <stddef.h>

#include "argv.h"
#include "err.h"
#include "interp_cache.h"       /* struct interp_info */

#define DEFAULT_PYTHON "/usr/bin/python3"

/* A path, a bare version ("3.12": `uv python find`, then python3.12 on
 * PATH) or an executable name. malloc'd absolute path, or -1 with err
 * saying what was tried. */
int interp_resolve(const char *spec, char **path, struct sbx_err *err);
/* Runs `python -I -c ...` once, unsandboxed, unless the interpreter cache
 * (interp_cache.h) holds a valid answer for path. */
int interp_query(const char *path, struct interp_info *info, struct sbx_err *err);

/* True for paths every tier already shows read-only (/usr, /etc, /bin...). */
bool path_is_system(const char *path);
/* The install root of an interpreter binary: .../bin/python -> "...". */
char *interp_install_root(const char *binary);
/* Adds every link of path's symlink chain (and the final target) as its
 * install root, skipping system paths. */
int interp_chain_binds(const char *path, struct strvec *binds);
/* The directory part through realpath, the last component kept (a symlink
 * to the interpreter stays a symlink, so venv detection is unchanged). */
int interp_canon_dir(char *path, size_t size);
/* Sorts, drops duplicates and paths under another entry. Pure. */
void binds_normalize(struct strvec *binds);

#endif
