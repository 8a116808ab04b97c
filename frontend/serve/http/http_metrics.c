/* The server's counters and its /metrics page (Prometheus' text format):
 * requests by endpoint and status class, refusals, runs by outcome, the
 * queue, and latency percentiles over the last HTTP_LATENCY_WINDOW
 * answers (nearest rank, computed when the page is asked for). Pure. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "strbuf.h"

static const char *const endpoint_names[HTTP_EP_COUNT] = {
        "run_code", "serve", "health", "metrics", "ping", "other",
};
static const char *const outcome_names[HTTP_OUT_COUNT] = {
        "success", "failed", "timeout", "sandbox_error", "cancelled",
};

void http_metrics_init(struct http_metrics *m, int64_t now_ms)
{
        memset(m, 0, sizeof(*m));
        m->started_ms = now_ms;
}

void http_metrics_answer(struct http_metrics *m, enum http_endpoint ep, int status)
{
        int cls = status / 100;

        m->requests[ep < HTTP_EP_COUNT ? ep : HTTP_EP_OTHER]++;
        m->by_status[cls >= 1 && cls <= 5 ? cls : 0]++;
        if (status == 429)
                m->refused_429++;
        else if (status == 503)
                m->refused_503++;
        else if (status == 413)
                m->refused_413++;
        else if (status == 401)
                m->unauthorized++;
}

void http_metrics_latency(struct http_metrics *m, double seconds)
{
        m->latency_s[m->latency_pos] = seconds;
        m->latency_pos = (m->latency_pos + 1) % HTTP_LATENCY_WINDOW;
        if (m->latency_n < HTTP_LATENCY_WINDOW)
                m->latency_n++;
}

/* The mean over a decaying window: recent runs weigh most. */
void http_metrics_run(struct http_metrics *m, enum http_outcome out, double run_s)
{
        m->runs[out < HTTP_OUT_COUNT ? out : HTTP_OUT_SANDBOX_ERROR]++;
        if (out == HTTP_OUT_CANCELLED || !isfinite(run_s) || run_s < 0)
                return;
        if (m->run_s_n >= 256) {
                m->run_s_sum *= 255.0 / 256.0;
                m->run_s_n = 255;
        }
        m->run_s_sum += run_s;
        m->run_s_n++;
}

double http_metrics_mean_run_s(const struct http_metrics *m)
{
        return m->run_s_n ? m->run_s_sum / (double)m->run_s_n : 0;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

double http_metrics_quantile(const struct http_metrics *m, double q)
{
        double sorted[HTTP_LATENCY_WINDOW];

        if (!m->latency_n)
                return 0;
        memcpy(sorted, m->latency_s, m->latency_n * sizeof(double));
        qsort(sorted, m->latency_n, sizeof(double), cmp_double);
        size_t rank = (size_t)ceil(q * (double)m->latency_n);
        return sorted[rank ? rank - 1 : 0];
}

static void addf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void addf(struct strbuf *b, const char *fmt, ...)
{
        char line[512];
        va_list ap;

        va_start(ap, fmt);
        int n = vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        strbuf_addn(b, line, n < 0 ? 0 : (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static void counter(struct strbuf *b, const char *name, const char *help, const char *type)
{
        addf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void requests_text(struct strbuf *b, const struct http_metrics *m)
{
        counter(b, "sbx_http_requests_total", "Requests answered, by endpoint.", "counter");
        for (int i = 0; i < HTTP_EP_COUNT; i++)
                addf(b, "sbx_http_requests_total{endpoint=\"%s\"} %llu\n",
                               endpoint_names[i], (unsigned long long)m->requests[i]);
        counter(b, "sbx_http_responses_total", "Responses, by status class.", "counter");
        for (int i = 1; i <= 5; i++)
                addf(b, "sbx_http_responses_total{code=\"%dxx\"} %llu\n", i,
                               (unsigned long long)m->by_status[i]);
        counter(b, "sbx_http_refused_total", "Requests refused, by status.", "counter");
        addf(b, "sbx_http_refused_total{code=\"429\"} %llu\n"
                       "sbx_http_refused_total{code=\"503\"} %llu\n"
                       "sbx_http_refused_total{code=\"413\"} %llu\n"
                       "sbx_http_refused_total{code=\"401\"} %llu\n",
                       (unsigned long long)m->refused_429, (unsigned long long)m->refused_503,
                       (unsigned long long)m->refused_413, (unsigned long long)m->unauthorized);
        counter(b, "sbx_runs_total", "Runs ended, by outcome.", "counter");
        for (int i = 0; i < HTTP_OUT_COUNT; i++)
                addf(b, "sbx_runs_total{outcome=\"%s\"} %llu\n", outcome_names[i],
                               (unsigned long long)m->runs[i]);
}

char *http_metrics_text(const struct http_metrics *m, size_t waiting, size_t running,
                        size_t connections, int slots, int64_t now_ms)
{
        static const double qs[] = { 0.5, 0.9, 0.99 };
        struct strbuf b = { 0 };

        requests_text(&b, m);
        counter(&b, "sbx_queue_length", "Requests admitted and waiting for a run slot.", "gauge");
        addf(&b, "sbx_queue_length %zu\n", waiting);
        counter(&b, "sbx_runs_in_flight", "Runs in flight.", "gauge");
        addf(&b, "sbx_runs_in_flight %zu\n", running);
        counter(&b, "sbx_run_slots", "Runs at once at most (-j).", "gauge");
        addf(&b, "sbx_run_slots %d\n", slots);
        counter(&b, "sbx_http_connections", "Open HTTP connections.", "gauge");
        addf(&b, "sbx_http_connections %zu\n", connections);
        counter(&b, "sbx_request_latency_seconds", "Admission to answer, over the last "
                "answers (nearest rank).", "summary");
        for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
                addf(&b, "sbx_request_latency_seconds{quantile=\"%g\"} %.6f\n", qs[i],
                               http_metrics_quantile(m, qs[i]));
        addf(&b, "sbx_request_latency_seconds_count %zu\n", m->latency_n);
        counter(&b, "sbx_uptime_seconds", "Seconds since the server started.", "gauge");
        addf(&b, "sbx_uptime_seconds %.3f\n", (double)(now_ms - m->started_ms) / 1000);
        return strbuf_done(&b);
}
