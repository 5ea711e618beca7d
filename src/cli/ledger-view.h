/* What the server of a federated run received in a round, in words (ledger-view.c). */
#ifndef FEDBN_CLI_LEDGER_VIEW_H
#define FEDBN_CLI_LEDGER_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/algo.h"

/* What the server received in rec, one clause into buf: "the sum of 8 clients' 20 x 20
 * matrices, no client's own", or "4 clients' own messages, one by one (secure=no)". */
void fb_ledger_what(const fb_run *run, const fb_trace_rec *rec, char *buf, size_t len);
/* The epsilon spent after rec as "; epsilon spent 0.84 of 1" (empty without dp_epsilon=). */
void fb_ledger_dp(const fb_run *run, const fb_trace_rec *rec, char *buf, size_t len);
/* The round's line ("round 3: up 2.5 kB, down 2.5 kB; the server received ..."), then with
 * values the summed matrix or numbers, or with clients too each client's own message in the
 * algorithm's words. */
void fb_ledger_round(fb_buf *out, const fb_run *run, const fb_trace_rec *rec, bool values,
                     bool clients);

#endif
