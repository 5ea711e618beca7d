/* ledger: what the server of a federated run received, round by round: the sum of the
 * clients' vectors (with the matrix or the numbers) when its server takes sums, each
 * client's own message otherwise, the bytes, and the privacy spent; 'ledger compare' sets
 * the last two runs side by side, as toggling secure= between them shows. */
#include "config.h"

#include <string.h>

#include "fedbn/algo.h"
#include "cmd.h"
#include "ledger-view.h"
#include "session.h"

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
				fb_ledger_what(run[i], &run[i]->trace.r[r], what[i], sizeof what[i]);
				fb_ledger_dp(run[i], &run[i]->trace.r[r], dp[i], sizeof dp[i]);
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
	for (size_t i = 0; i < run->trace.n; i++) {
		fb_buf b = { 0 };

		fb_ledger_round(&b, run, &run->trace.r[i], values, true);
		fputs(b.data != NULL ? b.data : "", ctx->out);
		fb_buf_release(&b);
	}
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
	        "the bytes up and down; and with dp_epsilon= the epsilon spent after the round "
	        "(fedpc with dp_epsilon=: each layer's sum is the clients' noisy votes, 1 plus a "
	        "0 or 1 per pair voted on from each client, and its orientation's the noisy "
	        "collider votes, one count per end pair and per unshielded triple, one round "
	        "where FedOrien without noise takes 21); with dp_epsilon= no client's own figure "
	        "(its rows, tests or local loss) reaches the server: the clients pane shows it as "
	        "withheld. "
	        "A run keeps its rounds' sums as it keeps their messages (within 16 MB, oldest "
	        "dropped first). 'ledger compare' sets the last two runs side by side, a line a "
	        "round: run the same algorithm with secure=no, then with secure=yes, and it "
	        "shows each client's messages on the left against their sum on the right. "
	        "values=no leaves the numbers out.",
	.min_args = 0, .max_args = 1, .words = ledger_words, .params = ledger_params,
	.needs = FB_NEEDS_RUN, .exec = exec_ledger,
};
