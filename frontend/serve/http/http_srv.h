/* What http_server.c (reading requests) and http_answer.c (sending
 * answers) share on libmicrohttpd's side of the server. */
#ifndef SBX_HTTP_SRV_H
#define SBX_HTTP_SRV_H

#include <microhttpd.h>

#include "http.h"

#define HTTP_JSON "application/json"

/* r's answer handed to libmicrohttpd now (counted in the metrics); the
 * same with its fields set first; a GET endpoint's answer. */
enum MHD_Result http_srv_send(struct http_req *r);
enum MHD_Result http_srv_answer_now(struct http_req *r, int status, char *body, unsigned retry);
enum MHD_Result http_srv_answer_get(struct http_req *r, bool authorized);
/* {"detail": MESSAGE}, malloc'd (NULL when out of memory). */
char *http_json_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
