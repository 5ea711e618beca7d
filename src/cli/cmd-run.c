/* Running algorithms: run, step, result. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/algo.h"
#include "cmd.h"
#include "heartbeat.h"
#include "history.h"
#include "interrupt.h"
#include "pane.h"
#include "report.h"
#include "session.h"

/* The run that run/step continue, or a new one when the set-up changed or it finished. */
static fb_run *current_run(fb_cmd_ctx *ctx)
{
	fb_session *s = ctx->s;
	fb_run *last = fb_session_last_run(s), *run;
	fb_error err = { { 0 } };
	fb_fed_options fo;
	fb_run_spec spec = { .algo = s->algo, .params = &s->params, .fedopt = &fo,
	                     .data = s->data, .part = s->split, .truth = s->truth,
	                     .knowledge = s->knowledge };

	if (last != NULL && !s->stale && !fb_run_done(last))
		return last;
	fb_fed_options_init(&fo);
	fo.threads = (size_t)fb_params_int(&s->runopt, "threads");
	fo.share = fb_params_double(&s->runopt, "share");
	fo.seed = s->seed;
	fo.secure = fb_params_bool(&s->runopt, "secure");
	fo.threshold = (size_t)fb_params_int(&s->runopt, "t");
	fo.secure_bits = (unsigned)fb_params_int(&s->runopt, "secure_bits");
	fo.dp_epsilon = fb_params_double(&s->runopt, "dp_epsilon");
	fo.dp_delta = fb_params_double(&s->runopt, "dp_delta");
	fo.dp_sigma = fb_params_double(&s->runopt, "dp_sigma");
	fo.dp_clip = fb_params_double(&s->runopt, "dp_clip");
	run = fb_run_alloc(&spec, &err);
	if (run == NULL) {
		fb_cmd_error(ctx, "%s", err.msg);
		return NULL;
	}
	if (fb_params_bool(&s->runopt, "reuse"))
		run->memo = s->memo;
	fb_session_add_run(s, run);
	fprintf(ctx->out, "run %zu: %s on %s%s%s\n", s->nruns, run->name,
	        run->part != NULL ? run->part->desc : "all rows",
	        fb_run_note(run)[0] ? "; " : "", fb_run_note(run));
	return run;
}

/* Say that run stopped at Ctrl-C before it finished: a line at the prompt; in batch mode an
 * error, so that a script or --bail does not take a cut-short run for a whole one. */
static int report_stopped(fb_cmd_ctx *ctx, const fb_run *run)
{
	if (!ctx->interactive)
		return fb_cmd_error_plain(ctx, "%s: stopped after round %zu (%s); run or step "
		                               "continue it", run->name, fb_run_rounds(run),
		                          fb_interrupt_cause());
	fprintf(ctx->out, "stopped after round %zu (Ctrl-C); run or step continue it\n",
	        fb_run_rounds(run));
	return FB_CMD_OK;
}

/* Step run up to max rounds (0: until done), one line per round, and a heartbeat on standard
 * error within a long round; Ctrl-C stops between rounds. */
static int advance_text(fb_cmd_ctx *ctx, fb_run *run, size_t max)
{
	fb_error err = { { 0 } };
	int ret = FB_CMD_OK;
	size_t first = fb_run_rounds(run);
	double t0 = fb_clock_now(), steps = run->seconds;
	char what[96];
	fb_heartbeat *hb;

	snprintf(what, sizeof what, "run %zu (%s)", fb_cmd_run_number(ctx->s, run), run->name);
	hb = fb_heartbeat_start(ctx->err, what, fb_heartbeat_every());
	fb_interrupt_begin();
	for (size_t i = 0; (max == 0 || i < max) && !fb_run_done(run); i++) {
		fb_heartbeat_round(hb, fb_run_rounds(run) + 1);
		if (fb_run_step(run, &err) != FB_OK) {
			ret = fb_cmd_error_plain(ctx, "%s: round %zu: %s", run->name,
			                         fb_run_rounds(run) + 1, err.msg);
			break;
		}
		fb_report_round(ctx->out, run, fb_run_last(run));
		if (run->fed != NULL && fb_fed_news(run->fed) != NULL)
			fprintf(ctx->out, "%s\n", fb_fed_news(run->fed));
		if (fb_interrupted()) {
			if (!fb_run_done(run))
				ret = report_stopped(ctx, run);
			break;
		}
	}
	fb_interrupt_end();
	fb_heartbeat_stop(hb);
	if (fb_pane_stats_wanted()) {
		double wall = fb_clock_now() - t0;

		steps = run->seconds - steps;
		fprintf(stderr, "text stats: %zu rounds in %.4f s, of which steps %.4f s (overhead "
		        "%.1f%%)\n", fb_run_rounds(run) - first, wall, steps,
		        steps > 0 ? 100.0 * (wall - steps) / steps : 0.0);
	}
	if (ret == FB_CMD_OK && fb_run_done(run))
		fb_report_finished(ctx->out, run);
	return ret;
}

/* The run's number in the session, from 1 (0 when it is not there). */
size_t fb_cmd_run_number(const fb_session *s, const fb_run *run)
{
	for (size_t i = 0; i < s->nruns; i++)
		if (s->runs[i] == run)
			return i + 1;
	return 0;
}

/* What the shell prints after the pane: the last round, a stop, a failure, the end. */
static int pane_report(fb_cmd_ctx *ctx, fb_run *run, const fb_pane_outcome *o)
{
	if (o->rounds > 0 && fb_run_last(run) != NULL)
		fb_report_round(ctx->out, run, fb_run_last(run));
	if (o->failed)
		return fb_cmd_error_plain(ctx, "%s: round %zu: %s", run->name, o->failed_round,
		                          o->err.msg);
	if (o->interrupted && !fb_run_done(run))
		return report_stopped(ctx, run);
	if (o->rounds > 0 && fb_run_done(run))
		fb_report_finished(ctx->out, run);
	return FB_CMD_OK;
}

/* Show run in the pane, opening with start (rounds for FB_PANE_ROUNDS) at pace rounds a second
 * (0: as fast as they come); FB_CMD_ERROR with *opened false when the terminal could not be
 * taken over. */
static int advance_pane(fb_cmd_ctx *ctx, fb_run *run, enum fb_pane_start start, size_t rounds,
                        double pace, bool *opened)
{
	fb_pane_request req = { .start = start, .rounds = rounds, .pace = pace };
	fb_pane_outcome o;

	req.run_no = fb_cmd_run_number(ctx->s, run);
	req.data = run->whole == ctx->s->data ? ctx->s->data_source : NULL;
	fflush(ctx->out);
	*opened = fb_pane_show(run, &req, &o) == FB_OK;
	if (!*opened) {
		fb_cmd_warn(ctx, "no live pane: %s; printing one line per round", o.err.msg);
		return FB_CMD_ERROR;
	}
	return pane_report(ctx, run, &o);
}

/* Advance run by max rounds (0: until done): in the pane on a terminal (at pace rounds a
 * second, 0: as fast as they come), else as lines. */
static int advance(fb_cmd_ctx *ctx, fb_run *run, size_t max, double pace)
{
	bool opened = false;
	int ret;

	if (!fb_pane_usable(ctx->out))
		return advance_text(ctx, run, max);
	ret = advance_pane(ctx, run, max == 0 ? FB_PANE_UNTIL_DONE : FB_PANE_ROUNDS, max, pace,
	                   &opened);
	return opened ? ret : advance_text(ctx, run, max);
}

/* Whether the newest run has finished with nothing changed since; says so when it has. */
static bool finished_unchanged(fb_cmd_ctx *ctx)
{
	fb_run *last = fb_session_last_run(ctx->s);

	if (last == NULL || ctx->s->stale || !fb_run_done(last))
		return false;
	fprintf(ctx->out, "run %zu (%s) has finished after %zu rounds; change the data, split, "
	                  "algorithm or a parameter to start another\n", ctx->s->nruns, last->name,
	        fb_run_rounds(last));
	return true;
}

/* Save the rounds a run or step command actually ran (from rounds r0 of run; whole: it was
 * asked to run to the end): "run" when it did, else "step N", so that a replay steps the
 * same rounds whatever the keys or Ctrl-C did. */
static void history_rounds(fb_cmd_ctx *ctx, const fb_run *run, size_t r0, bool whole)
{
	size_t n = fb_run_rounds(run) - r0;

	if (n == 0 && r0 == 0)
		fb_history_as(ctx->s, "# run %zu started and stopped before its first round",
		              ctx->s->nruns);
	else if (n == 0)
		fb_history_as(ctx->s, "# no round was run");
	else if (whole && fb_run_done(run))
		fb_history_as(ctx->s, "run");
	else
		fb_history_as(ctx->s, "step %zu", n);
}

/* Advance run by max rounds (0: until done) at a pace, and save what it did. */
static int advance_recorded(fb_cmd_ctx *ctx, fb_run *run, size_t max, double pace)
{
	size_t r0 = fb_run_rounds(run);
	int ret = advance(ctx, run, max, pace);

	history_rounds(ctx, run, r0, max == 0);
	return ret;
}

/* run [rounds=N]: rounds until the algorithm finishes (or N rounds). */
static int exec_run(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_run *run;

	if (finished_unchanged(ctx))
		return FB_CMD_OK;
	if ((run = current_run(ctx)) == NULL)
		return FB_CMD_ERROR;
	return advance_recorded(ctx, run, (size_t)fb_params_int(&a->params, "rounds"),
	                        fb_params_double(&a->params, "pace"));
}

/* step [N]: N rounds (1). */
static int exec_step(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	int64_t n = 1;
	fb_run *run;

	if (a->argc > 0 && (fb_parse_int64(a->argv[0], &n) != FB_OK || n < 1))
		return fb_cmd_error(ctx, "the number of rounds must be a whole number >= 1, "
		                         "not '%s'", a->argv[0]);
	if (finished_unchanged(ctx))
		return FB_CMD_OK;
	if ((run = current_run(ctx)) == NULL)
		return FB_CMD_ERROR;
	return advance_recorded(ctx, run, (size_t)n, 0);
}

/* The run numbered n (1-based), or the newest for 0; NULL after printing the error. */
fb_run *fb_cmd_pick_run(fb_cmd_ctx *ctx, int64_t n)
{
	if (fb_cmd_need(ctx, FB_NEEDS_RUN) != FB_CMD_OK)
		return NULL;
	if (n == 0)
		return fb_session_last_run(ctx->s);
	if ((size_t)n > ctx->s->nruns) {
		fb_cmd_error(ctx, "there is no run %" PRId64 " (runs 1 to %zu)", n,
		             ctx->s->nruns);
		return NULL;
	}
	return ctx->s->runs[n - 1];
}

/* result [run=N]: the estimate, its accuracy, rounds, time and bytes. */
static int exec_result(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_run *run = fb_cmd_pick_run(ctx, fb_params_int(&a->params, "run"));

	if (run == NULL)
		return FB_CMD_ERROR;
	return fb_report_result(ctx->out, run) == FB_OK ? FB_CMD_OK
	                                               : fb_cmd_error(ctx, "%s has no "
	                                                                   "estimate yet", run->name);
}

/* Print run's recorded rounds as lines, each with its sentence (watch without a terminal). */
static void print_rounds(fb_cmd_ctx *ctx, const fb_run *run)
{
	for (size_t i = 0; i < run->trace.n; i++) {
		fb_report_round(ctx->out, run, &run->trace.r[i]);
		if (run->trace.r[i].say != NULL)
			fprintf(ctx->out, "      %s\n", run->trace.r[i].say);
	}
	if (run->trace.n == 0)
		fprintf(ctx->out, "%s has no round yet: step or run it\n", run->name);
	else if (fb_run_done(run))
		fb_report_finished(ctx->out, run);
}

/* Open the pane on run without stepping it; rounds the keys step there are saved as a step
 * of the newest run, which a replay can repeat, or else as a comment. */
static int watch_pane(fb_cmd_ctx *ctx, fb_run *run)
{
	size_t r0 = fb_run_rounds(run), n;
	bool opened;
	int ret = advance_pane(ctx, run, FB_PANE_IDLE, 0, 0, &opened);

	if ((n = fb_run_rounds(run) - r0) == 0)
		return ret;
	if (run == fb_session_last_run(ctx->s) && !ctx->s->stale)
		fb_history_as(ctx->s, "step %zu", n);
	else
		fb_history_as(ctx->s, "# watch stepped run %zu by %zu rounds, which a replay "
		              "cannot repeat", fb_cmd_run_number(ctx->s, run), n);
	return ret;
}

/* watch's first word: whether run and step open the pane. */
enum watch_switch { WATCH_OFF, WATCH_ON };
/* Its names. */
static const fb_choice watch_switch[] = { { "on", WATCH_ON }, { "off", WATCH_OFF }, { 0 } };

/* watch [on|off] [run=N]: the pane on a run without stepping it, or switch the pane. */
static int exec_watch(fb_cmd_ctx *ctx, fb_cmd_args *a)
{
	fb_run *run;

	if (a->argc > 0) {
		fb_pane_set_enabled(fb_cmd_word_value(&fb_cmd_watch, a->argv[0]) == WATCH_ON);
		fprintf(ctx->out, fb_pane_enabled() ? "the pane is on: run and step open it on a "
		                                      "terminal\n"
		                                    : "the pane is off: run and step print one "
		                                      "line per round\n");
		return FB_CMD_OK;
	}
	if ((run = fb_cmd_pick_run(ctx, fb_params_int(&a->params, "run"))) == NULL)
		return FB_CMD_ERROR;
	if (!fb_pane_usable(ctx->out)) {
		print_rounds(ctx, run);
		return FB_CMD_OK;
	}
	return watch_pane(ctx, run);
}

/* watch's parameters. */
static const fb_param_def watch_params[] = {
	{ "run", FB_PARAM_INT, "0", 0, 1e9, NULL, "which run (1 is the first; 0: the newest)" },
	{ 0 },
};

/* run's parameters. */
static const fb_param_def run_params[] = {
	{ "rounds", FB_PARAM_INT, "0", 0, 1e9, NULL, "at most this many rounds (0: until done)" },
	{ "pace", FB_PARAM_DOUBLE, "0", 0, 32, NULL,
	  "in the pane, rounds a second to begin at (+ and - change it there; 0: as fast as "
	  "they come); without the pane it does nothing" },
	{ 0 },
};

/* result's parameters. */
static const fb_param_def result_params[] = {
	{ "run", FB_PARAM_INT, "0", 0, 1e9, NULL, "which run (1 is the first; 0: the newest)" },
	{ 0 },
};

const fb_cmd_entry fb_cmd_run = {
	.name = "run", .usage = "", .summary = "run the algorithm until it finishes",
	.help = "Run the chosen algorithm round by round until it finishes (or for N rounds), "
	        "in the live pane on a terminal (one line per round otherwise, or with "
	        "--no-pane or 'watch off'); pace=R opens the pane at R rounds a second, to "
	        "follow the rounds as they come (a class, a demo). The newest run continues when nothing changed "
	        "since it started; after a change of data, split, algorithm or parameter a new "
	        "run starts. Ctrl-C stops at the end of the current round and keeps everything "
	        "computed so far; in batch mode the stopped run counts as a failed command "
	        "(exit status 1, and --bail stops there).",
	.min_args = 0, .max_args = 0, .params = run_params, .exec = exec_run,
};

const fb_cmd_entry fb_cmd_step = {
	.name = "step", .usage = "[N]", .summary = "advance the run by N rounds (1)",
	.help = "Advance the newest run by N communication rounds (default 1), or start a new "
	        "run when nothing is running or the set-up changed; in the live pane on a "
	        "terminal, where the keys step on (? lists them), else one line per round.",
	.min_args = 0, .max_args = 1, .exec = exec_step,
};

const fb_cmd_entry fb_cmd_result = {
	.name = "result", .usage = "", .summary = "show a run's graph and accuracy",
	.help = "Show a run's estimated edges with their weights, how the result was made, its "
	        "accuracy against the truth (SHD, extra, missing, reversed, TPR, FDR, precision, "
	        "recall, F1, NNZ), rounds, seconds and bytes exchanged; a run that has not "
	        "finished says so. The accuracy is the one the pane, compare and the pictures "
	        "show: each pair of variables joined in the estimate is one estimated edge (NNZ "
	        "counts them), an undirected one included. It is a true positive (TP) when the "
	        "truth joins the pair and the estimate does not point against it (an undirected "
	        "edge over a true edge is correct), reversed when it points the other way, and "
	        "extra when the truth does not join the pair; a true edge left out is missing. "
	        "SHD = extra + missing + reversed; TPR = recall = TP / true edges; FDR = "
	        "(reversed + extra) / NNZ; precision = TP / NNZ = 1 - FDR (FDR 0 and precision 1 "
	        "when nothing is estimated); F1 = 2 precision recall / (precision + recall). "
	        "Beside it: the SHD once a CPDAG estimate is extended to a DAG, and the SHD "
	        "between the two CPDAGs (a differing pair costs 1).",
	.min_args = 0, .max_args = 0, .params = result_params, .needs = FB_NEEDS_RUN,
	.exec = exec_result,
};

const fb_cmd_entry fb_cmd_watch = {
	.name = "watch", .usage = "[on|off]", .summary = "open the live pane on a run",
	.help = "Open the live pane on the newest run (or run N) without stepping it. In the "
	        "pane, space or n steps one round, a count then Enter steps that many, r runs "
	        "until done, p pauses, t and T lower and raise the display threshold, v or Tab "
	        "change the view (progress, graph, clients, messages, detail), ? lists every key, "
	        "and q goes back to the shell; Ctrl-C stops a running loop, a second one leaves. "
	        "To teach a run: + and - set a pace (0.25 to 32 rounds a second, shown in the top "
	        "bar, or as fast as they come), b and f go back and forward one round (< the "
	        "first, > the newest) and every view shows that round: its sentence (what the "
	        "round did, in the algorithm's words), the table and plots up to it, its "
	        "estimate, and in the messages view (m) what the server received (under "
	        "secure=yes the clients' sum, as ledger shows it) and what each client sent and "
	        "received, sizes always and values where they are small enough to read; only "
	        "what an "
	        "algorithm keeps of its newest round alone (FedPC's votes and separating sets, "
	        "fedcircuit's clients x variables matrix, FedDAG's distances) stays on the "
	        "newest round in the detail view, which says so; r from an earlier "
	        "round replays the rounds at the pace. A run keeps its rounds' estimates and "
	        "messages within 16 MB, dropping the oldest first; their figures and sentences "
	        "stay. "
	        "'watch off' makes run and step print one line per round instead of opening the "
	        "pane (as --no-pane does); 'watch on' brings it back. Without a terminal, watch "
	        "prints the run's rounds as lines, each followed by its sentence.",
	.min_args = 0, .max_args = 1, .words = watch_switch, .params = watch_params,
	.exec = exec_watch,
};
