/* A --serve suite request, run as a child `sbx-run --suite` (the same code
 * as the command line), its result records streamed back. */
#ifndef SBX_SERVE_SUITE_H
#define SBX_SERVE_SUITE_H

#include <stddef.h>

#include <poll.h>

#include "sandbox.h"
#include "serve_request.h"

struct serve_suite;
int serve_suite_start(struct serve_suite **out, const struct serve_request *rq,
                      const char *self, char *const *server_args,
                      struct sandbox *sb, struct sbx_err *err);
/* Fills up to 2 pollfds; returns how many. */
size_t serve_suite_pollfds(const struct serve_suite *s, struct pollfd *pfds);
/* Reads what is there, emits result lines through emit(ctx, line);
 * returns 1 once the child has exited and its summary was emitted. */
int serve_suite_step(struct serve_suite *s, void (*emit)(void *, char *), void *ctx);
void serve_suite_kill(struct serve_suite *s);
void serve_suite_free(struct serve_suite *s);

#endif
