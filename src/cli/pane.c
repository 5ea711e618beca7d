/* The live pane: its on/off setting, one visit (take the terminal, loop, give it back) and the
 * loop that steps the run and redraws.  The loop owns the rounds: it steps one, reads the keys
 * that came meanwhile, and draws a frame only when enough time has passed, so that fast rounds
 * are not slowed down by drawing. */
#include "config.h"

#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pane-int.h"

/* Whether run and step may open the pane (--no-pane and 'watch off' clear it). */
static bool pane_on = true;

/* Switch the pane on or off. */
void fb_pane_set_enabled(bool on)
{
	pane_on = on;
}

/* Whether the pane is on. */
bool fb_pane_enabled(void)
{
	return pane_on;
}

/* Whether run and step should open the pane. */
bool fb_pane_usable(FILE *out)
{
	return pane_on && isatty(STDIN_FILENO) && isatty(fileno(out));
}

/* Whether FEDBN_PANE_STATS is set to something other than 0. */
bool fb_pane_stats_wanted(void)
{
	const char *s = getenv("FEDBN_PANE_STATS");

	return s != NULL && *s != '\0' && strcmp(s, "0") != 0;
}

/* Set the bottom bar's message. */
void pane_say(pane *p, bool err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->msg, sizeof p->msg, fmt, ap);
	va_end(ap);
	p->msg_err = err;
	p->dirty = true;
}

/* Start a batch of n rounds (0: until done). */
void pane_batch_start(pane *p, size_t n)
{
	if (p->running)
		return;
	if (p->at == 0 && fb_run_done(p->run)) {
		pane_say(p, false, "%s has finished after %zu round%s", p->run->name,
		         fb_run_rounds(p->run), fb_run_rounds(p->run) == 1 ? "" : "s");
		return;
	}
	p->running = true;
	p->batch_left = n;
	p->batch_t0 = fb_clock_now();
	p->next_due = 0;
	if (p->at > 0 && n != 1)
		pane_say(p, false, "replaying from round %zu%s: p pauses", p->at,
		         p->pace > 0 ? "" : " (+ and - set a pace)");
	else if (n == 0)
		pane_say(p, false, "running until done: p pauses, Ctrl-C stops");
	else if (n > 1)
		pane_say(p, false, "stepping %zu rounds: p pauses, Ctrl-C stops", n);
}

/* Stop the batch. */
void pane_batch_stop(pane *p, const char *why)
{
	if (!p->running)
		return;
	p->st.loop_s += fb_clock_now() - p->batch_t0;
	p->running = false;
	p->batch_left = 0;
	if (why != NULL)
		pane_say(p, false, "%s", why);
	p->dirty = true;
}

/* Move the round looked back at one forward, as a round of the batch; past the last kept
 * round the views show the newest again. */
static void pane_replay_round(pane *p)
{
	p->dirty = true;
	if (++p->at >= fb_run_rounds(p->run))
		p->at = 0;
	if (p->at == 0 && fb_run_done(p->run))
		pane_batch_stop(p, "replayed to the last round");
	else if (p->batch_left > 0 && --p->batch_left == 0)
		pane_batch_stop(p, NULL);
}

/* Step one round of the batch; stop the batch on failure, at the end or when it is done. */
static void pane_round(pane *p)
{
	fb_error err = { { 0 } };
	double t0 = fb_clock_now();
	int ret = fb_run_step(p->run, &err);
	char why[120];

	p->st.step_s += fb_clock_now() - t0;
	p->dirty = true;
	if (ret != FB_OK) {
		p->out->failed = true;
		p->out->failed_round = fb_run_rounds(p->run) + 1;
		p->out->err = err;
		pane_batch_stop(p, NULL);
		pane_say(p, true, "round %zu failed: %s", p->out->failed_round, err.msg);
		return;
	}
	p->out->failed = false;
	p->out->rounds++;
	p->st.rounds++;
	if (fb_run_done(p->run)) {
		snprintf(why, sizeof why, "finished after %zu round%s: q goes back to the shell",
		         fb_run_rounds(p->run), fb_run_rounds(p->run) == 1 ? "" : "s");
		pane_batch_stop(p, why);
	} else if (p->batch_left > 0 && --p->batch_left == 0) {
		pane_batch_stop(p, NULL);
		p->msg[0] = '\0';
	}
}

/* Whether a frame is due while rounds run: at most 20 a second, and drawing may take at
 * most 1 / PANE_DRAW_SHARE of the time. */
static bool pane_frame_due(const pane *p)
{
	double gap = p->draw_cost * PANE_DRAW_SHARE;

	if (gap < PANE_FRAME_GAP)
		gap = PANE_FRAME_GAP;
	return fb_clock_now() - p->last_draw >= gap;
}

/* Read every key waiting (none is waited for); leaving stops the reading so that what the
 * user types next goes to the shell.  Returns how many were read. */
static size_t pane_keys_drain(pane *p)
{
	size_t n = 0;
	int ch;

	timeout(0);
	while (!p->leave && (ch = getch()) != ERR) {
		pane_key(p, ch);
		n++;
	}
	return n;
}

/* Wait for keys or a signal (at most ms milliseconds) and handle them; a terminal that
 * reports input but gives none three times running has gone away (end of input). */
static void pane_keys_wait(pane *p, int ms, int *empty)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	int ready = poll(&pfd, 1, ms);

	if (ready <= 0)
		return;
	if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) {
		p->leave = true;
		return;
	}
	if (pane_keys_drain(p) > 0)
		*empty = 0;
	else if (++*empty >= 3)
		p->leave = true;
}

/* While running at a pace: wait for keys until the next round is due; true while it is not
 * due yet (the loop comes back). */
static bool pane_pace_wait(pane *p, int *empty)
{
	double now = fb_clock_now(), left = p->next_due - now;

	if (p->pace <= 0)
		return false;
	if (left <= 0) {
		p->next_due = (left < -1.0 / p->pace ? now : p->next_due) + 1.0 / p->pace;
		return false;
	}
	if (p->dirty)
		pane_draw(p);
	pane_keys_wait(p, (int)(left * 1000) + 1, empty);
	return true;
}

/* The loop of one visit: rounds while running, keys, frames. */
static void pane_loop(pane *p)
{
	int empty = 0;

	p->dirty = true;
	while (!p->leave) {
		pane_term_signals(p);
		if (p->leave)
			break;
		if (p->running && pane_pace_wait(p, &empty))
			continue;
		if (p->running && p->at > 0) {
			pane_replay_round(p);
			pane_draw(p);
			pane_keys_drain(p);
			continue;
		}
		if (p->running) {
			pane_round(p);
			pane_keys_drain(p);
			pane_term_signals(p);
			if (!p->running || pane_frame_due(p))
				pane_draw(p);
			continue;
		}
		if (p->dirty)
			pane_draw(p);
		pane_keys_wait(p, 500, &empty);
	}
	pane_batch_stop(p, NULL);
}

/* Print the visit's timing figures on standard error. */
static void pane_stats_print(const pane *p)
{
	const pane_stats *s = &p->st;
	size_t draws = 0;
	double total = 0;

	for (int v = 0; v < PANE_NVIEWS; v++) {
		draws += s->draws[v];
		total += s->draw_s[v];
	}
	fprintf(stderr, "pane stats: d=%zu, %zu frames, mean %.3f ms, max %.3f ms", p->run->data->d,
	        draws, draws ? 1e3 * total / (double)draws : 0.0, 1e3 * s->draw_max);
	for (int v = 0; v < PANE_NVIEWS; v++)
		if (s->draws[v] > 0)
			fprintf(stderr, "; %s %zu x %.3f ms", pane_view_name((enum pane_view)v),
			        s->draws[v], 1e3 * s->draw_s[v] / (double)s->draws[v]);
	fprintf(stderr, "\npane stats: %zu rounds in %.4f s, of which steps %.4f s "
	                "(overhead %.1f%%)\n", s->rounds, s->loop_s, s->step_s,
	        s->step_s > 0 ? 100.0 * (s->loop_s - s->step_s) / s->step_s : 0.0);
}

/* The display threshold a run starts with: its own parameter when it has one. */
static double pane_start_threshold(const fb_run *run)
{
	if (fb_params_find(&run->params, "threshold") >= 0)
		return fb_params_double(&run->params, "threshold");
	return 0.3;
}

/* Show run in the pane until the user leaves. */
int fb_pane_show(fb_run *run, const fb_pane_request *req, fb_pane_outcome *out)
{
	pane p;

	memset(out, 0, sizeof *out);
	memset(&p, 0, sizeof p);
	p.run = run;
	p.req = req;
	p.out = out;
	p.thr = pane_start_threshold(run);
	p.pace = req->pace > 0 ? req->pace : 0;
	p.g.round = (size_t)-1;
	if (pane_term_open(&p, &out->err) != FB_OK)
		return FB_ERR;
	if (req->start == FB_PANE_ROUNDS && req->rounds > 0)
		pane_batch_start(&p, req->rounds);
	else if (req->start == FB_PANE_UNTIL_DONE)
		pane_batch_start(&p, 0);
	pane_loop(&p);
	pane_term_close();
	pane_graph_release(&p.g);
	if (fb_pane_stats_wanted())
		pane_stats_print(&p);
	if (pane_term_ending())
		pane_term_reraise();
	return FB_OK;
}

/* Free what the pane keeps between visits. */
void fb_pane_release(void)
{
	pane_term_release();
}
