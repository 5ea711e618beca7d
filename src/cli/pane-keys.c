/* The pane's keys: one table (pane_actions) behind the keys, the help (?) and the bottom bar;
 * the count typed before Enter, the threshold, the pace, looking back, the views, scrolling. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pane-int.h"

/* Escape, Ctrl-D, Ctrl-L, Tab. */
#define KEY_ESCAPE 27
#define KEY_CTRL_D 4
#define KEY_CTRL_L 12
#define KEY_TAB '\t'

/* Steps of the display threshold, and its range. */
#define THR_STEP 0.05
#define THR_MAX 10.0

/* A digit, Backspace, Enter or Esc while a count is being typed; true when it was used. */
static bool pane_key_count(pane *p, int ch)
{
	size_t len = strlen(p->num);

	if (ch >= '0' && ch <= '9') {
		if (len + 1 < sizeof p->num && !(len == 0 && ch == '0')) {
			p->num[len] = (char)ch;
			p->num[len + 1] = '\0';
		}
		pane_say(p, false, "%s rounds: Enter steps them, Esc forgets", p->num);
		return true;
	}
	if (len == 0)
		return false;
	if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
		p->num[len - 1] = '\0';
		pane_say(p, false, "%s%s", p->num, len > 1 ? " rounds: Enter steps them" : "");
		return true;
	}
	if (ch == '\r' || ch == '\n' || ch == KEY_ENTER) {
		size_t n = strtoul(p->num, NULL, 10);

		p->num[0] = '\0';
		p->msg[0] = '\0';
		pane_batch_start(p, n);
		return true;
	}
	p->num[0] = '\0';
	p->msg[0] = '\0';
	return ch == KEY_ESCAPE; /* Esc only forgets the count; another key also does its job */
}

/* Lower (dir < 0) or raise the display threshold. */
static void pane_key_threshold(pane *p, int dir)
{
	p->thr += dir * THR_STEP;
	if (p->thr < 1e-9)
		p->thr = 0;
	if (p->thr > THR_MAX)
		p->thr = THR_MAX;
	if (!fb_run_has_weights(p->run))
		pane_say(p, false, "display threshold %.2f (the estimate has no weights: it does "
		                   "not apply)", p->thr);
	else
		pane_say(p, false, "display threshold %.2f: the graph view marks |w| > %.2f", p->thr,
		         p->thr);
}

/* Scroll the view on screen: rows (dr) and columns (dc). */
static void pane_key_scroll(pane *p, long dr, long dc)
{
	size_t *first = p->view == PANE_PROGRESS ? &p->plot_first : &p->list_first;

	if (p->view == PANE_GRAPH) {
		pane_graph_move(p, dr, dc);
		return;
	}
	if (dr == 0)
		return;
	if (dr < 0)
		*first = (size_t)-dr > *first ? 0 : *first - (size_t)-dr;
	else
		*first += (size_t)dr; /* the view clamps it */
}

/* Keys that scroll or move the cursor, and by how much. */
static const struct {
	int key;     /* the key */
	long dr, dc; /* rows and columns (rows in pages when page is set) */
	bool page;   /* dr counts screens, not rows */
} moves[] = {
	{ KEY_UP, -1, 0, false }, { 'k', -1, 0, false }, { KEY_DOWN, 1, 0, false },
	{ 'j', 1, 0, false }, { KEY_LEFT, 0, -1, false }, { 'h', 0, -1, false },
	{ KEY_RIGHT, 0, 1, false }, { 'l', 0, 1, false }, { KEY_PPAGE, -1, 0, true },
	{ KEY_NPAGE, 1, 0, true }, { KEY_HOME, -1000000, -1000000, false },
	{ KEY_END, 1000000, 0, false },
};

/* Arrow and paging keys; true when ch was one. */
static bool pane_key_move(pane *p, int ch)
{
	long page = LINES > 8 ? LINES - 8 : 1;

	for (size_t i = 0; i < sizeof moves / sizeof *moves; i++) {
		if (moves[i].key == ch) {
			pane_key_scroll(p, moves[i].dr * (moves[i].page ? page : 1), moves[i].dc);
			return true;
		}
	}
	return false;
}

/* Show round r (from 1; 0 or the newest: the newest), pausing a batch, and say which. */
static void pane_key_goto(pane *p, size_t r)
{
	size_t n = fb_run_rounds(p->run);

	if (n == 0) {
		pane_say(p, false, "no round yet: n steps one");
		return;
	}
	pane_batch_stop(p, NULL);
	p->at = r >= n ? 0 : r; /* 0 asks for the newest */
	if (p->at == 0)
		pane_say(p, false, "round %zu, the newest", n);
	else
		pane_say(p, false, "looking back at round %zu of %zu: b back, f forward, > newest, r "
		         "replays", p->at, n);
}

/* Change the pace by one step of PANE_PACES (dir > 0: faster). */
static void pane_key_pace(pane *p, int dir)
{
	static const double paces[] = PANE_PACES;
	size_t n = sizeof paces / sizeof *paces, i = 0;

	while (i < n && p->pace > 0 && paces[i] < p->pace)
		i++; /* i: the pace's place; n: as fast as they come */
	if (p->pace <= 0)
		i = n;
	if (dir > 0)
		i = i < n ? i + 1 : n;
	else
		i = i > 0 ? i - 1 : 0;
	p->pace = i < n ? paces[i] : 0;
	p->next_due = 0;
	if (p->pace > 0)
		pane_say(p, false, "pace: %g round%s a second (+ faster, - slower)", p->pace,
		         p->pace == 1 ? "" : "s");
	else
		pane_say(p, false, "pace: as fast as the rounds come (- slows down)");
}

/* space, n: step one round (forward one while looking back). */
static void act_step(pane *p, int ch)
{
	if (p->at > 0)
		pane_key_goto(p, p->at + 1);
	else if (!p->running)
		pane_batch_start(p, 1);
}

/* r: run until the algorithm finishes (from an earlier round: replay). */
static void act_run(pane *p, int ch)
{
	pane_batch_start(p, 0);
}

/* p: pause after the current round. */
static void act_pause(pane *p, int ch)
{
	if (p->running && p->at > 0)
		pane_say(p, false, "replay paused at round %zu of %zu: f forward, r replays on, > "
		         "newest", p->at, fb_run_rounds(p->run));
	else if (p->running)
		pane_say(p, false, "paused after round %zu: n steps one, r runs on",
		         fb_run_rounds(p->run));
	pane_batch_stop(p, NULL);
}

/* b, f, <, >: back, forward, the first round, the newest. */
static void act_goto(pane *p, int ch)
{
	size_t shown = pane_upto(p);

	if (ch == 'b')
		pane_key_goto(p, shown > 1 ? shown - 1 : 1);
	else if (ch == 'f')
		pane_key_goto(p, shown + 1);
	else
		pane_key_goto(p, ch == '<' ? 1 : 0);
}

/* +, =, -: faster, slower. */
static void act_pace(pane *p, int ch)
{
	pane_key_pace(p, ch == '-' ? -1 : 1);
}

/* m: the messages view. */
static void act_messages(pane *p, int ch)
{
	p->view = PANE_MESSAGES;
	p->list_first = 0;
}

/* t, T: lower, raise the display threshold. */
static void act_threshold(pane *p, int ch)
{
	pane_key_threshold(p, ch == 't' ? -1 : 1);
}

/* v, Tab, Shift-Tab: the next view, the previous. */
static void act_view(pane *p, int ch)
{
	p->view = (p->view + (ch == KEY_BTAB ? PANE_NVIEWS - 1 : 1)) % PANE_NVIEWS;
	p->list_first = 0;
}

/* Arrows, PgUp, PgDn, Home, End: scroll or move the cursor. */
static void act_move(pane *p, int ch)
{
	pane_key_move(p, ch);
}

/* Ctrl-L: draw the screen again. */
static void act_redraw(pane *p, int ch)
{
	clearok(curscr, TRUE);
}

/* ?: the help. */
static void act_help(pane *p, int ch)
{
	p->help = true;
}

/* q, Esc, Ctrl-D: leave the pane (stopping a batch after its current round). */
static void act_leave(pane *p, int ch)
{
	pane_batch_stop(p, NULL);
	p->leave = true;
}

/* The pane's keys, in the help's order: the one table behind the keys, the help and the
 * bottom bar (rows without keys are done elsewhere: the count, Ctrl-C). */
const pane_action pane_actions[] = {
	{ "space, n", "n step", "step one round", { ' ', 'n' }, act_step },
	{ "12 Enter", "5 Enter", "step that many rounds (any count)", { 0 }, NULL },
	{ "r", "r run", "run until the algorithm finishes (up to 20 frames a second)", { 'r' },
	  act_run },
	{ "p", "p pause", "pause after the current round (or the replay)", { 'p' }, act_pause },
	{ "b, f", "b/f back", "back, forward one round: every view shows that round", { 'b', 'f' },
	  act_goto },
	{ "+, -", "+/- pace", "faster, slower: a pace in rounds a second for r and replays",
	  { '+', '=', '-' }, act_pace },
	{ "<, >", NULL, "the first round, the newest; r from an earlier round replays",
	  { '<', '>' }, act_goto },
	{ "m", NULL, "the messages view: what each client sent and received", { 'm' },
	  act_messages },
	{ "Ctrl-C", NULL, "stop a running loop after its round; when stopped, leave", { 0 }, NULL },
	{ "t, T", NULL, "lower, raise the display threshold on |w| (graph view)", { 't', 'T' },
	  act_threshold },
	{ "v, Tab", "v view", "next view (Shift-Tab: previous)", { 'v', KEY_TAB, KEY_BTAB },
	  act_view },
	{ "arrows, j k", NULL, "scroll plots and lists; move the graph view's cursor",
	  { KEY_UP, KEY_DOWN, KEY_LEFT, KEY_RIGHT, 'k', 'j', 'h', 'l' }, act_move },
	{ "PgUp PgDn", NULL, "scroll a page (Home, End: first, last)",
	  { KEY_PPAGE, KEY_NPAGE, KEY_HOME, KEY_END }, act_move },
	{ "Ctrl-L", NULL, "draw the screen again", { KEY_CTRL_L }, act_redraw },
	{ "?", "? help", "this help; any key closes it", { '?' }, act_help },
	{ "q, Esc", "q back", "back to the shell (result, export and run go on from here)",
	  { 'q', KEY_ESCAPE, KEY_CTRL_D }, act_leave },
};

/* The number of rows of pane_actions. */
const size_t pane_nactions = sizeof pane_actions / sizeof *pane_actions;

/* The row of pane_actions that does ch, or NULL. */
static const pane_action *pane_action_of(int ch)
{
	for (size_t i = 0; i < pane_nactions; i++)
		for (size_t k = 0; k < PANE_ACTION_KEYS && pane_actions[i].key[k] != 0; k++)
			if (pane_actions[i].key[k] == ch && pane_actions[i].act != NULL)
				return &pane_actions[i];
	return NULL;
}

/* Handle one key. */
void pane_key(pane *p, int ch)
{
	const pane_action *a;

	p->dirty = true;
	if (ch == KEY_RESIZE)
		return;
	if (p->help) {
		p->help = false;
		if (ch == '?' || ch == KEY_ESCAPE || ch == 'q')
			return;
	}
	if (p->running && ch >= '0' && ch <= '9') {
		pane_say(p, false, "rounds are running: p pauses them, then a count and Enter steps "
		                   "that many");
		return;
	}
	if (!p->running && pane_key_count(p, ch))
		return;
	if ((a = pane_action_of(ch)) != NULL)
		a->act(p, ch);
	else
		pane_say(p, false, "%s is not a key of the pane: ? lists them",
		         keyname(ch) != NULL ? keyname(ch) : "that");
}
