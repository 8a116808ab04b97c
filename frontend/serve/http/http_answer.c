/* The server's answers, handed to libmicrohttpd (http_server.c reads the
 * requests): an answer made now or when its run ends, its headers
 * (Retry-After, the WWW-Authenticate of a 401), the metrics it counts,
 * and the GET endpoints (/health, /metrics, /v1/ping). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "http_srv.h"
#include "util.h"


char *http_json_detail(const char *fmt, ...)
{
        char msg[512];
        va_list ap;
        cJSON *o = cJSON_CreateObject();

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        cJSON_AddStringToObject(o, "detail", msg);
        char *text = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        return text;
}

void http_srv_answer(struct http_req *r, int status, char *body, const char *ctype,
                     unsigned retry_after)
{
        free(r->answer);
        r->status = status;
        r->answer = body;
        r->answer_len = body ? strlen(body) : 0;
        r->ctype = ctype;
        r->retry_after = retry_after;
        r->state = HTTP_REQ_ANSWER;
        http_srv_resume(r);
}

void http_srv_drop_body(struct http_req *r)
{
        r->srv->buffered -= r->charge;
        r->charge = r->len = r->cap = 0;
        free(r->body);
        r->body = NULL;
}

void http_srv_resume(struct http_req *r)
{
        if (r->suspended) {
                r->suspended = false;
                r->srv->resumed = true;
                MHD_resume_connection(r->conn);
        }
}

unsigned http_srv_retry_after(const struct http_srv *s)
{
        return http_retry_after_s(http_admit_waiting(s->admit), http_metrics_mean_run_s(&s->metrics),
                                  s->o->slots);
}

static void add_headers(struct MHD_Response *resp, const struct http_req *r)
{
        char retry[16];

        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, r->ctype ? r->ctype : HTTP_JSON);
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
        if (r->retry_after) {
                snprintf(retry, sizeof(retry), "%u", r->retry_after);
                MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, retry);
        }
        if (r->status == MHD_HTTP_UNAUTHORIZED)
                MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer realm=\"sbx\"");
        if (r->status == MHD_HTTP_METHOD_NOT_ALLOWED)
                MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
                                        r->ep == HTTP_EP_RUN_CODE || r->ep == HTTP_EP_SERVE ? "POST" : "GET");
}

/* Hands r's answer to libmicrohttpd; a body that could not be made (out
 * of memory) is a 500 without one. */
enum MHD_Result http_srv_send(struct http_req *r)
{
        struct MHD_Response *resp;

        if (!r->answer)
                r->status = MHD_HTTP_INTERNAL_SERVER_ERROR;
        resp = MHD_create_response_from_buffer(r->answer_len, r->answer, MHD_RESPMEM_MUST_FREE);
        if (!resp)
                return MHD_NO;
        r->answer = NULL;               /* the response's now */
        add_headers(resp, r);
        enum MHD_Result rc = MHD_queue_response(r->conn, (unsigned)r->status, resp);
        MHD_destroy_response(resp);
        r->state = HTTP_REQ_SENT;
        r->sent_ms = sbx_now_ms();
        http_metrics_answer(&r->srv->metrics, r->ep, r->status);
        if (r->admitted_ms)
                http_metrics_latency(&r->srv->metrics, (double)(r->sent_ms - r->admitted_ms) / 1000);
        return rc;
}

enum MHD_Result http_srv_answer_now(struct http_req *r, int status, char *body, unsigned retry)
{
        r->status = status;
        r->answer = body;
        r->answer_len = body ? strlen(body) : 0;
        r->ctype = HTTP_JSON;
        r->retry_after = retry;
        return http_srv_send(r);
}

static char *health_json(const struct http_srv *s, bool details)
{
        cJSON *o = cJSON_CreateObject();

        cJSON_AddStringToObject(o, "status", s->draining ? "draining" : "ok");
        if (details) {
                cJSON_AddStringToObject(o, "version", SBX_VERSION);
                cJSON_AddStringToObject(o, "tier", s->o->ready_tier ? s->o->ready_tier : "");
                cJSON_AddNumberToObject(o, "slots", s->o->slots);
                cJSON_AddNumberToObject(o, "running", (double)http_admit_running(s->admit));
                cJSON_AddNumberToObject(o, "slots_busy", (double)s->slots_used);
                cJSON_AddNumberToObject(o, "queued", (double)http_admit_ready_count(s->admit));
                cJSON_AddNumberToObject(o, "reading", (double)(http_admit_waiting(s->admit) -
                                                               http_admit_ready_count(s->admit)));
                cJSON_AddNumberToObject(o, "queue_max", (double)s->o->queue_max);
        }
        char *text = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        return text;
}

enum MHD_Result http_srv_answer_get(struct http_req *r, bool authorized)
{
        struct http_srv *s = r->srv;

        switch (r->ep) {
        case HTTP_EP_HEALTH:
                return http_srv_answer_now(r, s->draining ? MHD_HTTP_SERVICE_UNAVAILABLE : MHD_HTTP_OK,
                                  health_json(s, authorized), 0);
        case HTTP_EP_PING:
                return http_srv_answer_now(r, MHD_HTTP_OK, strdup("\"pong\""), 0);
        case HTTP_EP_METRICS:
                r->ctype = "text/plain; version=0.0.4";
                r->status = MHD_HTTP_OK;
                r->answer = http_metrics_text(&s->metrics, http_admit_waiting(s->admit),
                                              http_admit_running(s->admit), s->n_conns,
                                              s->o->slots, sbx_now_ms());
                r->answer_len = r->answer ? strlen(r->answer) : 0;
                return http_srv_send(r);
        default:
                return http_srv_answer_now(r, MHD_HTTP_NOT_FOUND, http_json_detail("Not Found"), 0);
        }
}
