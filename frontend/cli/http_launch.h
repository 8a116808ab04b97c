/* sbx-run's side of --http (http_launch.c): the server is sbx-http, a
 * program of its own (frontend/serve/http/), which sbx-run executes. */
#ifndef SBX_HTTP_LAUNCH_H
#define SBX_HTTP_LAUNCH_H

#include <stdbool.h>

/* Whether sbx-run's arguments ask for the HTTP server (--http...). */
bool http_launch_wanted(int argc, char **argv);
/* Executes sbx-http with them; returns only on failure, with sbx-run's
 * exit status, having said why. */
int http_launch(int argc, char **argv);

#endif
