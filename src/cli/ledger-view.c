/* What the server of a federated run received in a round, in words (ledger, and the pane's
 * messages view): the sum of the clients' vectors with the matrix or the numbers when its
 * server takes sums under secure=yes, each client's own message otherwise, the bytes, the
 * privacy spent. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ledger-view.h"
#include "report.h"

/* The widest matrix written out whole, and the most numbers of a vector. */
#define LEDGER_MAX_D 20
#define LEDGER_MAX_NUMBERS 24

/* Whether run's sums of n numbers begin with a d x d matrix: those of a learner of weights
 * or a combinator (fewer than d numbers after it: NOTEARS-ADMM sends two more); FedPC's and
 * FedC2SL's are votes and tables. */
static bool ledger_matrix(const fb_run *run, size_t n, size_t d)
{
	return (run->algo->flags & (FB_ALGO_WEIGHTED | FB_ALGO_COMBINATOR)) && n >= d * d &&
	       n < d * d + d;
}

/* What the server received in rec, in one sentence into buf: the sum of how many clients'
 * vectors of what shape, or each client's own message. */
void fb_ledger_what(const fb_run *run, const fb_trace_rec *rec, char *buf, size_t len)
{
	size_t d = run->data->d, took = 0;

	for (size_t c = 0; c < rec->nclients; c++)
		took += rec->took[c];
	if (rec->nclients == 0)
		snprintf(buf, len, "no message (no federation)");
	else if (rec->nsum > 0 && run->fedopt.secure && ledger_matrix(run, rec->nsum, d))
		snprintf(buf, len, "the sum of %zu clients' %zu x %zu matrices%s, no client's own",
		         rec->sum_count, d, d, rec->nsum > d * d ? " (and a few numbers)" : "");
	else if (rec->nsum > 0 && run->fedopt.secure && rec->exchanges > 1)
		snprintf(buf, len, "the sum of %zu clients' vectors of %zu numbers (the last of %zu "
		         "exchanges, each a sum), no client's own", rec->sum_count, rec->nsum,
		         rec->exchanges);
	else if (rec->nsum > 0 && run->fedopt.secure)
		snprintf(buf, len, "the sum of %zu clients' vectors of %zu numbers, no client's own",
		         rec->sum_count, rec->nsum);
	else
		snprintf(buf, len, "%zu client%s own message%s, one by one (secure=no)", took,
		         took == 1 ? "'s" : "s'", took == 1 ? "" : "s");
}

/* The privacy spent after rec, as a clause (empty without dp_epsilon=). */
void fb_ledger_dp(const fb_run *run, const fb_trace_rec *rec, char *buf, size_t len)
{
	buf[0] = '\0';
	if (run->fedopt.dp_epsilon > 0)
		snprintf(buf, len, "; epsilon spent %.2f of %g", rec->dp_spent,
		         run->fedopt.dp_epsilon);
}

/* The kept sum of rec: a d x d matrix row by row, or its first numbers. */
static void ledger_sum_values(fb_buf *out, const fb_run *run, const fb_trace_rec *rec)
{
	size_t d = run->data->d, n = rec->nsum;

	if (rec->sum == NULL) {
		fb_buf_printf(out, "      (its numbers are no longer kept)\n");
	} else if (ledger_matrix(run, n, d) && d <= LEDGER_MAX_D) {
		for (size_t i = 0; i < d; i++) {
			fb_buf_printf(out, "   ");
			for (size_t j = 0; j < d; j++)
				fb_buf_printf(out, " %6.2f", rec->sum[i * d + j]);
			fb_buf_printf(out, "\n");
		}
		for (size_t q = d * d; q < n; q++)
			fb_buf_printf(out, "%s %.4g%s", q == d * d ? "      then" : "", rec->sum[q],
			              q + 1 == n ? "\n" : "");
	} else {
		fb_buf_printf(out, "     ");
		for (size_t q = 0; q < n && q < LEDGER_MAX_NUMBERS; q++)
			fb_buf_printf(out, " %.4g", rec->sum[q]);
		fb_buf_printf(out, "%s\n", n > LEDGER_MAX_NUMBERS ? " ..." : "");
	}
}

/* Each client's own message of rec, in the algorithm's words where it has them. */
static void ledger_client_values(fb_buf *out, const fb_run *run, const fb_trace_rec *rec)
{
	char b[32];

	for (size_t c = 0; c < rec->nclients; c++) {
		fb_buf text = { 0 };
		fb_error err;

		if (!rec->took[c])
			continue;
		fb_report_bytes(rec->sent != NULL ? rec->sent[c] : 0, b, sizeof b);
		if (fb_run_message_text(run, rec, FB_UP, c, &text, &err) != FB_OK)
			fb_buf_printf(out, "      client %zu's message (%s): %s\n", c + 1, b, err.msg);
		else
			fb_buf_printf(out, "      client %zu's message (%s): %s\n", c + 1, b, text.data);
		fb_buf_release(&text);
	}
}

/* One round of run: its line, and its values when asked (each client's message only with
 * clients). */
void fb_ledger_round(fb_buf *out, const fb_run *run, const fb_trace_rec *rec, bool values,
                     bool clients)
{
	char what[160], dp[64], up[32], down[32];

	fb_ledger_what(run, rec, what, sizeof what);
	fb_ledger_dp(run, rec, dp, sizeof dp);
	fb_buf_printf(out, "round %zu: up %s, down %s; the server received %s%s\n", rec->round,
	              fb_report_bytes(rec->bytes_up, up, sizeof up),
	              fb_report_bytes(rec->bytes_down, down, sizeof down), what, dp);
	if (!values || rec->nclients == 0)
		return;
	if (rec->nsum > 0 && run->fedopt.secure)
		ledger_sum_values(out, run, rec);
	else if (clients)
		ledger_client_values(out, run, rec);
}
