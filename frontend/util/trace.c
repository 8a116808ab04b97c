/* Phase timestamps (trace.h). The only mutable globals of the frontend
 * outside its signal flags: one switch and two times, set by main(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "util.h"

static bool trace_enabled;
static long long trace_start_ns, trace_last_ns;

void sbx_trace_init(void)
{
        const char *v = getenv("SBX_TRACE");

        trace_enabled = v && v[0] && strcmp(v, "0") != 0;
        trace_start_ns = trace_last_ns = sbx_now_ns();
}

bool sbx_trace_on(void)
{
        return trace_enabled;
}

long long sbx_trace_start_ns(void)
{
        return trace_start_ns;
}

void sbx_trace(const char *phase)
{
        long long now;

        if (!trace_enabled)
                return;
        now = sbx_now_ns();
        fprintf(stderr, "sbx-run:    trace %8.3f ms %7.3f ms  %s\n",
                (double)(now - trace_start_ns) / 1e6,
                (double)(now - trace_last_ns) / 1e6, phase);
        trace_last_ns = now;
}
