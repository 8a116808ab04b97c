/* Admission: which requests wait and which run next. A request is
 * reserved when its headers are in (so a full queue refuses it before its
 * body is read), ready when its body is, running when it got a run slot.
 * Slots go to clients in turn, one ready request each, so that a client
 * with a thousand requests waiting delays a newcomer by at most one run
 * per slot; one client may hold at most client_max of the queue. Pure
 * (tests/unit/frontend_http_admit.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"

enum ticket_state { TICKET_RESERVED, TICKET_READY, TICKET_RUNNING };

struct client;

struct http_ticket {
        struct http_ticket *next;       /* the client's ready FIFO */
        struct client *client;
        enum ticket_state state;
        void *owner;
};

struct client {
        struct client *next;            /* every client */
        struct client *next_turn;       /* clients with ready requests, in turn */
        bool in_turn;
        struct http_ticket *head, *tail;
        size_t waiting;                 /* reserved or ready */
        size_t tickets;                 /* in any state: the record goes with the last */
        char key[HTTP_CLIENT_KEY_BYTES + 1];
};

struct http_admit {
        size_t queue_max, client_max;
        size_t waiting, ready, running, n_clients;
        bool closed;
        struct client *clients;
        struct client *turn_head, *turn_tail;
};

struct http_admit *http_admit_new(size_t queue_max, size_t client_max)
{
        struct http_admit *a = calloc(1, sizeof(*a));

        if (a) {
                a->queue_max = queue_max;
                a->client_max = client_max ? client_max : queue_max;
        }
        return a;
}

void http_admit_free(struct http_admit *a)
{
        if (!a)
                return;
        while (a->clients) {
                struct client *c = a->clients;
                a->clients = c->next;
                while (c->head) {
                        struct http_ticket *t = c->head;
                        c->head = t->next;
                        free(t);
                }
                free(c);
        }
        free(a);
}

static struct client *client_find(struct http_admit *a, const char *key)
{
        for (struct client *c = a->clients; c; c = c->next)
                if (strncmp(c->key, key, HTTP_CLIENT_KEY_BYTES) == 0)
                        return c;
        return NULL;
}

static struct client *client_add(struct http_admit *a, const char *key)
{
        struct client *c = calloc(1, sizeof(*c));

        if (!c)
                return NULL;
        strncpy(c->key, key, HTTP_CLIENT_KEY_BYTES);
        c->next = a->clients;
        a->clients = c;
        a->n_clients++;
        return c;
}

static void client_drop(struct http_admit *a, struct client *c)
{
        for (struct client **p = &a->clients; *p; p = &(*p)->next)
                if (*p == c) {
                        *p = c->next;
                        a->n_clients--;
                        free(c);
                        return;
                }
}

enum http_admit_verdict http_admit_reserve(struct http_admit *a, const char *key, void *owner,
                                           struct http_ticket **out)
{
        struct client *c = client_find(a, key);

        *out = NULL;
        if (a->closed)
                return HTTP_ADMIT_CLOSED;
        if (c && c->waiting >= a->client_max)
                return HTTP_ADMIT_CLIENT_FULL;
        if (a->waiting >= a->queue_max)
                return HTTP_ADMIT_QUEUE_FULL;
        struct http_ticket *t = calloc(1, sizeof(*t));
        if (!t || (!c && !(c = client_add(a, key)))) {
                free(t);
                return HTTP_ADMIT_QUEUE_FULL;   /* out of memory: busy, try later */
        }
        t->client = c;
        t->owner = owner;
        t->state = TICKET_RESERVED;
        c->waiting++;
        c->tickets++;
        a->waiting++;
        *out = t;
        return HTTP_ADMIT_OK;
}

static void turn_push(struct http_admit *a, struct client *c)
{
        c->next_turn = NULL;
        c->in_turn = true;
        if (a->turn_tail)
                a->turn_tail->next_turn = c;
        else
                a->turn_head = c;
        a->turn_tail = c;
}

static void turn_remove(struct http_admit *a, struct client *c)
{
        struct client *prev = NULL;

        for (struct client *p = a->turn_head; p; prev = p, p = p->next_turn) {
                if (p != c)
                        continue;
                if (prev)
                        prev->next_turn = c->next_turn;
                else
                        a->turn_head = c->next_turn;
                if (a->turn_tail == c)
                        a->turn_tail = prev;
                break;
        }
        c->in_turn = false;
}

bool http_admit_ready(struct http_admit *a, struct http_ticket *t)
{
        struct client *c = t->client;

        if (a->closed || t->state != TICKET_RESERVED)
                return false;
        t->state = TICKET_READY;
        a->ready++;
        t->next = NULL;
        if (c->tail)
                c->tail->next = t;
        else
                c->head = t;
        c->tail = t;
        if (!c->in_turn)
                turn_push(a, c);
        return true;
}

struct http_ticket *http_admit_next(struct http_admit *a)
{
        struct client *c = a->turn_head;

        if (!c)
                return NULL;
        struct http_ticket *t = c->head;
        c->head = t->next;
        if (!c->head)
                c->tail = NULL;
        turn_remove(a, c);
        if (c->head)
                turn_push(a, c);                /* its next request waits its turn */
        t->next = NULL;
        t->state = TICKET_RUNNING;
        a->ready--;
        c->waiting--;
        a->waiting--;
        a->running++;
        return t;
}

static void unlink_ready(struct http_admit *a, struct http_ticket *t)
{
        struct client *c = t->client;
        struct http_ticket *prev = NULL;

        for (struct http_ticket *p = c->head; p; prev = p, p = p->next) {
                if (p != t)
                        continue;
                if (prev)
                        prev->next = t->next;
                else
                        c->head = t->next;
                if (c->tail == t)
                        c->tail = prev;
                break;
        }
        if (!c->head && c->in_turn)
                turn_remove(a, c);
}

void http_admit_done(struct http_admit *a, struct http_ticket *t)
{
        struct client *c;

        if (!t)
                return;
        c = t->client;
        if (t->state == TICKET_READY) {
                unlink_ready(a, t);
                a->ready--;
        }
        if (t->state == TICKET_RUNNING) {
                a->running--;
        } else {
                c->waiting--;
                a->waiting--;
        }
        if (--c->tickets == 0)
                client_drop(a, c);
        free(t);
}

void *http_admit_owner(const struct http_ticket *t)
{
        return t->owner;
}

struct http_ticket **http_admit_close(struct http_admit *a)
{
        struct http_ticket **list = calloc(a->waiting + 1, sizeof(*list));
        size_t n = 0;

        a->closed = true;
        if (!list)
                return NULL;
        for (struct client *c = a->turn_head; c; c = c->next_turn)
                for (struct http_ticket *t = c->head; t; t = t->next)
                        list[n++] = t;
        return list;
}

size_t http_admit_waiting(const struct http_admit *a) { return a->waiting; }
size_t http_admit_ready_count(const struct http_admit *a) { return a->ready; }
size_t http_admit_running(const struct http_admit *a) { return a->running; }
size_t http_admit_clients(const struct http_admit *a) { return a->n_clients; }

unsigned http_retry_after_s(size_t waiting, double mean_run_s, int slots)
{
        double s = slots > 0 ? ceil((double)(waiting + 1) * mean_run_s / slots) : 1;

        return s < 1 || !isfinite(s) ? 1 : s > 60 ? 60 : (unsigned)s;
}
