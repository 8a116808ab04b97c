/* Admission (frontend/serve/http/http_admit.c): the queue's bound (503) and a
 * client's share (429), requests reserved before their body is read,
 * run slots handed to clients in turn so that a flood from one client
 * delays another by one run, the state of every request kept through
 * cancellation and shutdown, and Retry-After. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "http.h"

static struct http_ticket *take(struct http_admit *a, const char *client, void *owner)
{
        struct http_ticket *t;

        assert_int_equal(http_admit_reserve(a, client, owner, &t), HTTP_ADMIT_OK);
        assert_true(http_admit_ready(a, t));
        return t;
}

static void the_queue_and_a_clients_share_are_bounded(void **state)
{
        struct http_admit *a = http_admit_new(4, 3);
        struct http_ticket *t[5], *x;

        for (int i = 0; i < 3; i++)
                assert_int_equal(http_admit_reserve(a, "hog", NULL, &t[i]), HTTP_ADMIT_OK);
        assert_int_equal(http_admit_reserve(a, "hog", NULL, &x), HTTP_ADMIT_CLIENT_FULL);
        assert_null(x);
        assert_int_equal(http_admit_reserve(a, "b", NULL, &t[3]), HTTP_ADMIT_OK);
        assert_int_equal(http_admit_reserve(a, "c", NULL, &x), HTTP_ADMIT_QUEUE_FULL);
        assert_int_equal(http_admit_waiting(a), 4);
        /* a running request leaves the queue: room for one more */
        assert_true(http_admit_ready(a, t[0]));
        assert_ptr_equal(http_admit_next(a), t[0]);
        assert_int_equal(http_admit_waiting(a), 3);
        assert_int_equal(http_admit_running(a), 1);
        assert_int_equal(http_admit_reserve(a, "c", NULL, &t[4]), HTTP_ADMIT_OK);
        for (int i = 0; i < 5; i++)
                http_admit_done(a, t[i]);
        assert_int_equal(http_admit_waiting(a), 0);
        assert_int_equal(http_admit_running(a), 0);
        assert_int_equal(http_admit_clients(a), 0);
        http_admit_free(a);
}

/* A reserved request (its body still coming) does not run. */
static void only_ready_requests_run(void **state)
{
        struct http_admit *a = http_admit_new(8, 8);
        struct http_ticket *r;

        assert_int_equal(http_admit_reserve(a, "a", NULL, &r), HTTP_ADMIT_OK);
        assert_null(http_admit_next(a));
        assert_int_equal(http_admit_ready_count(a), 0);
        assert_true(http_admit_ready(a, r));
        assert_int_equal(http_admit_ready_count(a), 1);
        assert_false(http_admit_ready(a, r));   /* once */
        assert_ptr_equal(http_admit_next(a), r);
        assert_int_equal(http_admit_ready_count(a), 0);
        assert_null(http_admit_next(a));
        http_admit_done(a, r);
        http_admit_free(a);
}

static void clients_are_served_in_turn(void **state)
{
        struct http_admit *a = http_admit_new(100, 100);
        char order[32] = "";
        int owners[] = { 'A', 'B', 'C' };

        for (int i = 0; i < 10; i++)
                take(a, "hog", &owners[0]);
        take(a, "b", &owners[1]);
        take(a, "b", &owners[1]);
        take(a, "c", &owners[2]);
        for (int i = 0; i < 13; i++) {
                struct http_ticket *t = http_admit_next(a);
                order[i] = (char)*(int *)http_admit_owner(t);
                http_admit_done(a, t);
        }
        assert_null(http_admit_next(a));
        assert_string_equal(order, "ABCABAAAAAAAA");
        http_admit_free(a);
}

/* A newcomer behind a flood waits for one run per slot, not the flood. */
static void a_newcomer_is_not_starved(void **state)
{
        struct http_admit *a = http_admit_new(1000, 1000);
        int hog = 'H', late = 'L';

        for (int i = 0; i < 500; i++)
                take(a, "hog", &hog);
        struct http_ticket *first = http_admit_next(a);         /* the hog's, running */
        struct http_ticket *l = take(a, "late", &late);
        struct http_ticket *t = http_admit_next(a);
        if (t != l) {
                /* the hog's turn came first: the newcomer is next */
                http_admit_done(a, t);
                t = http_admit_next(a);
        }
        assert_ptr_equal(t, l);
        http_admit_done(a, t);
        http_admit_done(a, first);
        struct http_ticket **rest = http_admit_close(a);
        size_t n = 0;
        for (; rest[n]; n++)
                http_admit_done(a, rest[n]);
        free(rest);
        assert_true(n >= 497);
        assert_int_equal(http_admit_waiting(a), 0);
        http_admit_free(a);
}

static void cancelled_requests_leave_no_trace(void **state)
{
        struct http_admit *a = http_admit_new(10, 10);
        int o[3] = { 1, 2, 3 };
        struct http_ticket *r, *t1 = take(a, "a", &o[0]), *t2 = take(a, "a", &o[1]);

        assert_int_equal(http_admit_reserve(a, "b", &o[2], &r), HTTP_ADMIT_OK);
        http_admit_done(a, r);                  /* its client left before its body */
        http_admit_done(a, t1);                 /* one queued, its client left */
        assert_int_equal(http_admit_waiting(a), 1);
        assert_ptr_equal(http_admit_next(a), t2);
        assert_null(http_admit_next(a));
        http_admit_done(a, t2);
        assert_int_equal(http_admit_clients(a), 0);
        http_admit_free(a);
}

static void closing_returns_the_queue_and_refuses_more(void **state)
{
        struct http_admit *a = http_admit_new(10, 10);
        struct http_ticket *r, *x, *t[3];

        for (int i = 0; i < 3; i++)
                t[i] = take(a, i == 1 ? "b" : "a", NULL);
        assert_int_equal(http_admit_reserve(a, "c", NULL, &r), HTTP_ADMIT_OK);
        struct http_ticket *running = http_admit_next(a);
        struct http_ticket **rest = http_admit_close(a);
        size_t n = 0;
        for (; rest[n]; n++)
                assert_true(rest[n] == t[0] || rest[n] == t[1] || rest[n] == t[2]);
        assert_int_equal(n, 2);
        assert_int_equal(http_admit_reserve(a, "d", NULL, &x), HTTP_ADMIT_CLOSED);
        assert_false(http_admit_ready(a, r));   /* its body came after the close */
        for (size_t i = 0; i < n; i++)
                http_admit_done(a, rest[i]);
        free(rest);
        http_admit_done(a, r);
        http_admit_done(a, running);
        assert_int_equal(http_admit_waiting(a), 0);
        assert_int_equal(http_admit_running(a), 0);
        http_admit_free(a);
}

static void retry_after_follows_the_queue(void **state)
{
        assert_int_equal(http_retry_after_s(0, 0, 4), 1);
        assert_int_equal(http_retry_after_s(7, 1.0, 4), 2);
        assert_int_equal(http_retry_after_s(99, 0.5, 2), 25);
        assert_int_equal(http_retry_after_s(100000, 10, 1), 60);
        assert_int_equal(http_retry_after_s(3, 1, 0), 1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(the_queue_and_a_clients_share_are_bounded),
                cmocka_unit_test(only_ready_requests_run),
                cmocka_unit_test(clients_are_served_in_turn),
                cmocka_unit_test(a_newcomer_is_not_starved),
                cmocka_unit_test(cancelled_requests_leave_no_trace),
                cmocka_unit_test(closing_returns_the_queue_and_refuses_more),
                cmocka_unit_test(retry_after_follows_the_queue),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
