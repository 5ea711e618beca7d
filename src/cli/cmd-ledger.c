/* ledger: what the server of a federated run received, round by round: the sum of the
 * clients' vectors (with the matrix or the numbers) when its server takes sums, each
 * client's own message otherwise, the bytes, and the privacy spent; 'ledger compare' sets
 * the last two runs side by side, as toggling secure= between them shows. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "fedbn/algo.h"
#include "cmd.h"
#include "report.h"
#include "session.h"

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
static void ledger_what(const fb_run *run, const fb_trace_rec *rec, char *buf, size_t len)
{
	size_t d = run->data->d, took = 0;

	for (size_t c = 0; c < rec->nclients; c++)
		took += rec->took[c];
	if (rec->nclients == 0)
		snprintf(buf, len, "no message (no federation)");
	else if (rec->nsum > 0 && run->fedopt.secure && ledger_matrix(run, rec->nsum, d))
		snprintf(buf, len, "the sum of %zu clients' %zu x %zu matrices%s, no client's own",
		         rec->sum_count, d, d, rec->nsum > d * d ? " (and a few numbers)" : "");
	else if (rec->nsum > 0 && run->fedopt.secure)
		snprintf(buf, len, "the sum of %zu clients' vectors of %zu numbers, no client's own",
		         rec->sum_count, rec->nsum);
	else
		snprintf(buf, len, "%zu client%s own message%s, one by one (secure=no)", took,
		         took == 1 ? "'s" : "s'", took == 1 ? "" : "s");
}

/* The privacy spent after rec, as a clause (empty without dp_epsilon=). */
static void ledger_dp(const fb_run *run, const fb_trace_rec *rec, char *buf, size_t len)
{
	buf[0] = '\0';
	if (run->fedopt.dp_epsilon > 0)
		snprintf(buf, len, "; epsilon spent %.2f of %g", rec->dp_spent,
		         run->fedopt.dp_epsilon);
}

/* The kept sum of rec: a d x d matrix row by row, or its first numbers. */
static void ledger_sum_values(FILE *out, const fb_run *run, const fb_trace_rec *rec)
{
	size_t d = run->data->d, n = rec->nsum;

	if (rec->sum == NULL) {
		fprintf(out, "      (its numbers are no longer kept)\n");
	} else if (ledger_matrix(run, n, d) && d <= LEDGER_MAX_D) {
		for (size_t i = 0; i < d; i++) {
			fprintf(out, "     ");
			for (size_t j = 0; j < d; j++)
				fprintf(out, " %8.3f", rec->sum[i * d + j]);
			fprintf(out, "\n");
		}
		for (size_t q = d * d; q < n; q++)
			fprintf(out, "%s %.4g%s", q == d * d ? "      then" : "", rec->sum[q],
			        q + 1 == n ? "\n" : "");
	} else {
		fprintf(out, "     ");
		for (size_t q = 0; q < n && q < LEDGER_MAX_NUMBERS; q++)
			fprintf(out, " %.4g", rec->sum[q]);
		fprintf(out, "%s\n", n > LEDGER_MAX_NUMBERS ? " ..." : "");
	}
}

/* Each client's own message of rec, in the algorithm's words where it has them. */
static void ledger_client_values(FILE *out, const fb_run *run, const fb_trace_rec *rec)
{
	char b[32];

	for (size_t c = 0; c < rec->nclients; c++) {
		fb_buf text = { 0 };
		fb_error err;

		if (!rec->took[c])
			continue;
		fb_report_bytes(rec->sent != NULL ? rec->sent[c] : 0, b, sizeof b);
		if (fb_run_message_text(run, rec, FB_UP, c, &text, &err) != FB_OK)
			fprintf(out, "      client %zu's message (%s): %s\n", c + 1, b, err.msg);
		else
			fprintf(out, "      client %zu's message (%s): %s\n", c + 1, b, text.data);
		fb_buf_release(&text);
	}
}

/* One round of run: its line, and its values when asked. */
static void ledger_round(FILE *out, const fb_run *run, const fb_trace_rec *rec, bool values)
{
	char what[160], dp[64], up[32], down[32];

	ledger_what(run, rec, what, sizeof what);
	ledger_dp(run, rec, dp, sizeof dp);
	fprintf(out, "round %zu: up %s, down %s; the server received %s%s\n", rec->round,
	        fb_report_bytes(rec->bytes_up, up, sizeof up),
	        fb_report_bytes(rec->bytes_down, down, sizeof down), what, dp);
	if (!values || rec->nclients == 0)
		return;
	if (rec->nsum > 0 && run->fedopt.secure)
		ledger_sum_values(out, run, rec);
	else
		ledger_client_values(out, run, rec);
}

/* The run's heading: what protected its sums. */
static void ledger_heading(FILE *out, const fb_session *s, const fb_run *run)
{
	fprintf(out, "run %zu: %s, secure=%s%s\n", fb_cmd_run_number(s, run), run->name,
	        run->fedopt.secure ? "yes: the server received sums over the clients only"
	                           : "no: the server received each client's message",
	        run->fedopt.dp_epsilon > 0 ? ", with Gaussian noise (dp_epsilon=)" : "");
}

/* The last two runs' rounds side by side, one short line each. */
static void ledger_compare(FILE *out, const fb_session *s)
{
	const fb_run *a = s->runs[s->nruns - 2], *b = s->runs[s->nruns - 1];
	size_t n = a->trace.n > b->trace.n ? a->trace.n : b->trace.n;
	char head[2][64], what[2][160], dp[2][64];

	snprintf(head[0], sizeof head[0], "run %zu: %s, secure=%s", s->nruns - 1, a->name,
	         a->fedopt.secure ? "yes" : "no");
	snprintf(head[1], sizeof head[1], "run %zu: %s, secure=%s", s->nruns, b->name,
	         b->fedopt.secure ? "yes" : "no");
	fprintf(out, "round  %-60s | %s\n", head[0], head[1]);
	for (size_t r = 0; r < n; r++) {
		const fb_run *run[2] = { a, b };

		for (int i = 0; i < 2; i++) {
			what[i][0] = dp[i][0] = '\0';
			if (r < run[i]->trace.n) {
				ledger_what(run[i], &run[i]->trace.r[r], what[i], sizeof what[i]);
				ledger_dp(run[i], &run[i]->trace.r[r], dp[i], sizeof dp[i]);
			}
		}
		fprintf(out, "%5zu  %-60.60s | %s%s\n", r + 1, what[0], what[1], dp[1]);
		if (dp[0][0] != '\0')
			fprintf(out, "       %-60.60s |\n", dp[0] + 2);
	}
}

/* ledger [compare] [run=N] [values=no]. */
static int exec_ledger(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	const fb_run *run;
	bool values = fb_params_bool(&a->params, "values");

	if (a->argc == 1) {
		if (ctx->s->nruns < 2)
			return fb_cmd_error(ctx, "compare sets the last two runs side by side, and the "
			                    "session has %zu", ctx->s->nruns);
		ledger_compare(ctx->out, ctx->s);
		return FB_CMD_OK;
	}
	if ((run = fb_cmd_pick_run(ctx, fb_params_int(&a->params, "run"))) == NULL)
		return FB_CMD_ERROR;
	if (run->fed == NULL)
		return fb_cmd_error(ctx, "%s learnt from all rows in one place: no server received "
		                    "anything", run->name);
	ledger_heading(ctx->out, ctx->s, run);
	for (size_t i = 0; i < run->trace.n; i++)
		ledger_round(ctx->out, run, &run->trace.r[i], values);
	if (run->trace.n == 0)
		fprintf(ctx->out, "%s has no round yet: step or run it\n", run->name);
	return FB_CMD_OK;
}

/* Its one word. */
static const fb_choice ledger_words[] = { { "compare", 0 }, { 0 } };

/* Its parameters. */
static const fb_param_def ledger_params[] = {
	{ "run", FB_PARAM_INT, "0", 0, 1e9, NULL, "which run (1 is the first; 0: the newest)" },
	{ "values", FB_PARAM_BOOL, "yes", 0, 0, NULL,
	  "write what the server received: the summed matrix (up to 20 x 20) or the sum's first "
	  "24 numbers, or each client's message in the algorithm's words" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_ledger = {
	.name = "ledger", .usage = "[compare]",
	.summary = "what the server of a run received, round by round",
	.help = "Print, round by round, what the server of the newest run (or run N) received: "
	        "under secure=yes the sum of the clients' vectors and how many were in it (\"the "
	        "sum of 8 clients' 20 x 20 matrices, no client's own\") with the matrix, or the "
	        "sum's first numbers; under secure=no each client's own message, in the "
	        "algorithm's words where it has them (\"client 3's message: votes to keep: ...\"); "
	        "the bytes up and down; and with dp_epsilon= the epsilon spent after the round. "
	        "A run keeps its rounds' sums as it keeps their messages (within 16 MB, oldest "
	        "dropped first). 'ledger compare' sets the last two runs side by side, a line a "
	        "round: run the same algorithm with secure=no, then with secure=yes, and it "
	        "shows each client's messages on the left against their sum on the right. "
	        "values=no leaves the numbers out.",
	.min_args = 0, .max_args = 1, .words = ledger_words, .params = ledger_params,
	.needs = FB_NEEDS_RUN, .exec = exec_ledger,
};
