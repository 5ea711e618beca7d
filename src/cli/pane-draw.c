/* The pane's frame: the top bar (run, round, time, bytes, state, view), the view or the key
 * help, the bottom bar (messages, the count being typed, the main keys), or a notice when the
 * terminal is too small.  Also the text helpers every view uses. */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "pane-int.h"

/* The views' names. */
static const char *const view_names[PANE_NVIEWS] = { "progress", "graph", "clients",
	                                              "messages", "detail" };

/* The view's name. */
const char *pane_view_name(enum pane_view v)
{
	return v < PANE_NVIEWS ? view_names[v] : "";
}

/* Print s at (y, x) cut to w columns (multibyte text counted in columns). */
void pane_put(const pane *p, int y, int x, int w, enum pane_role role, const char *s)
{
	wchar_t ws[512];
	size_t n = mbstowcs(ws, s, sizeof ws / sizeof *ws - 1);
	int cols = 0, i = 0;

	if (w <= 0 || y < 0 || y >= LINES || x >= COLS)
		return;
	if (x + w > COLS)
		w = COLS - x;
	attrset(pane_attr(p, role));
	if (n == (size_t)-1) { /* not valid in this locale: bytes */
		mvaddnstr(y, x, s, w);
	} else {
		ws[n] = L'\0';
		for (; ws[i] != L'\0'; i++) {
			int cw = wcwidth(ws[i]);

			if (cw < 0) {
				ws[i] = L'?';
				cw = 1;
			}
			if (cols + cw > w)
				break;
			cols += cw;
		}
		mvaddnwstr(y, x, ws, i);
	}
	attrset(A_NORMAL);
}

/* Printf at (y, x), cut to w columns. */
void pane_putf(const pane *p, int y, int x, int w, enum pane_role role, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	pane_put(p, y, x, w, role, buf);
}

/* Fill row y with the bar's colour. */
static void pane_bar_fill(const pane *p, int y, int w)
{
	attrset(pane_attr(p, ROLE_BAR));
	mvhline(y, 0, ' ', w);
	attrset(A_NORMAL);
}

/* The run's state in a word. */
static const char *pane_state(const pane *p)
{
	if (p->running)
		return p->at > 0 ? "replaying" : "running";
	if (fb_run_done(p->run))
		return "finished";
	if (p->out->failed)
		return "failed";
	return fb_run_rounds(p->run) == 0 ? "ready" : "waiting";
}

/* Fields of the top bar, in the order shown. */
enum top_field { TOP_RUN, TOP_ROUND, TOP_TIME, TOP_BYTES, TOP_STATE, TOP_PACE, TOP_NFIELDS };

/* Which field goes first when the bar is too narrow for all: time, bytes, state, pace,
 * round. */
static const enum top_field top_drop[] = { TOP_TIME, TOP_BYTES, TOP_STATE, TOP_PACE,
	                                   TOP_ROUND };

/* The fields in use joined in bar (two spaces apart); its length in columns. */
static int pane_top_join(char f[TOP_NFIELDS][96], const bool *use, char *bar, size_t len)
{
	size_t n = 0;

	bar[0] = '\0';
	for (int i = 0; i < TOP_NFIELDS && n < len; i++)
		if (use[i] && f[i][0] != '\0')
			n += (size_t)snprintf(bar + n, len - n, "%s%s", n > 0 ? "  " : " ", f[i]);
	n = mbstowcs(NULL, bar, 0);
	return n == (size_t)-1 ? (int)strlen(bar) : (int)n;
}

/* The top bar: run, round, time, bytes and state on the left, dropping the least needed
 * (whole, never cut) until a blank column is left before the view's name on the right. */
static void pane_draw_top(const pane *p, int w)
{
	char f[TOP_NFIELDS][96] = { { 0 } }, bar[512], right[48];
	size_t max = pane_max_rounds(p->run), r = fb_run_rounds(p->run);
	bool use[TOP_NFIELDS] = { true, true, true, true, true, true };
	int rl;

	snprintf(f[TOP_RUN], sizeof f[TOP_RUN], "run %zu: %s", p->req->run_no, p->run->name);
	if (pane_upto(p) < r)
		snprintf(f[TOP_ROUND], sizeof f[TOP_ROUND], "showing round %zu of %zu", pane_upto(p),
		         r);
	else if (max > 0)
		snprintf(f[TOP_ROUND], sizeof f[TOP_ROUND], "round %zu of %zu", r, max);
	else
		snprintf(f[TOP_ROUND], sizeof f[TOP_ROUND], "round %zu", r);
	snprintf(f[TOP_TIME], sizeof f[TOP_TIME], "%.3f s", p->run->seconds);
	if (p->run->fed != NULL)
		pane_fmt_bytes(fb_run_bytes(p->run, FB_UP) + fb_run_bytes(p->run, FB_DOWN),
		               f[TOP_BYTES], sizeof f[TOP_BYTES]);
	snprintf(f[TOP_STATE], sizeof f[TOP_STATE], "%s", pane_state(p));
	if (p->pace > 0)
		snprintf(f[TOP_PACE], sizeof f[TOP_PACE], "%g round%s/s", p->pace,
		         p->pace == 1 ? "" : "s");
	snprintf(right, sizeof right, " %s ", view_names[p->view]);
	rl = (int)strlen(right);
	for (size_t i = 0; i < sizeof top_drop / sizeof *top_drop &&
	                   pane_top_join(f, use, bar, sizeof bar) > w - rl - 1; i++)
		use[top_drop[i]] = false;
	pane_top_join(f, use, bar, sizeof bar);
	pane_bar_fill(p, 0, w);
	pane_put(p, 0, 0, w - rl - 1, ROLE_BAR, bar);
	pane_put(p, 0, w - rl, rl, ROLE_KEY, right);
}

/* The bottom bar: the count being typed, a message, or the main keys (the key table's). */
static void pane_draw_bottom(const pane *p, int y, int w)
{
	char keys[256];
	size_t n = 0;

	keys[0] = '\0';
	for (size_t i = 0; i < pane_nactions && n < sizeof keys; i++)
		if (pane_actions[i].bar != NULL)
			n += (size_t)snprintf(keys + n, sizeof keys - n, "%s%s", n > 0 ? "  " : " ",
			                      pane_actions[i].bar);
	pane_bar_fill(p, y, w);
	if (p->num[0] != '\0')
		pane_putf(p, y, 0, w, ROLE_KEY, " step %s rounds: Enter", p->num);
	else if (p->msg[0] != '\0')
		pane_putf(p, y, 0, w, p->msg_err ? ROLE_ERROR : ROLE_BAR, " %s", p->msg);
	else
		pane_put(p, y, 0, w, ROLE_BAR, keys);
}

/* The notice shown instead of the pane in a terminal too small for it. */
static void pane_draw_small(const pane *p)
{
	char line[128];
	int len;

	snprintf(line, sizeof line, "the terminal is %d x %d; the pane needs %d x %d: enlarge it "
	         "or press q", COLS, LINES, PANE_MIN_COLS, PANE_MIN_ROWS);
	len = (int)strlen(line);
	for (int y = 0, off = 0; off < len && y < LINES; y++, off += COLS)
		pane_put(p, y, 0, COLS, ROLE_TITLE, line + off);
}

/* The help over the view. */
void pane_draw_help(pane *p, int top, int h, int w)
{
	int n = (int)pane_nactions;

	pane_put(p, top, 1, w - 2, ROLE_TITLE, "Keys of the pane");
	for (int i = 0; i < n && i + 2 < h; i++) {
		pane_put(p, top + 2 + i, 2, 13, ROLE_KEY, pane_actions[i].keys);
		pane_put(p, top + 2 + i, 16, w - 17, ROLE_TEXT, pane_actions[i].help);
	}
	if (n + 3 < h)
		pane_text(p, "views: progress (plots of every figure), graph (weights against the "
		          "truth), clients, messages, detail (the algorithm's own)", 0, top + n + 3,
		          h - n - 3, 2, w - 4, ROLE_DIM);
}

/* Draw the whole frame and count its time. */
void pane_draw(pane *p)
{
	double t0 = fb_clock_now(), dt;
	int h = LINES, w = COLS;

	erase();
	if (h < PANE_MIN_ROWS || w < PANE_MIN_COLS) {
		pane_draw_small(p);
	} else {
		pane_draw_top(p, w);
		if (p->help)
			pane_draw_help(p, 1, h - 2, w);
		else if (p->view == PANE_PROGRESS)
			pane_draw_progress(p, 1, h - 2, w);
		else if (p->view == PANE_GRAPH)
			pane_draw_graph(p, 1, h - 2, w);
		else if (p->view == PANE_CLIENTS)
			pane_draw_clients(p, 1, h - 2, w);
		else if (p->view == PANE_MESSAGES)
			pane_draw_messages(p, 1, h - 2, w);
		else
			pane_draw_detail(p, 1, h - 2, w);
		pane_draw_bottom(p, h - 1, w);
	}
	refresh();
	dt = fb_clock_now() - t0;
	p->st.draws[p->view]++;
	p->st.draw_s[p->view] += dt;
	if (dt > p->st.draw_max)
		p->st.draw_max = dt;
	p->draw_cost = p->draw_cost == 0 ? dt : 0.8 * p->draw_cost + 0.2 * dt;
	p->last_draw = fb_clock_now();
	p->dirty = false;
}

/* Columns a line segment of n bytes takes (bytes when it is not valid text here). */
static int pane_text_cols(const char *s, size_t n)
{
	char buf[512];
	size_t c;

	n = n < sizeof buf - 1 ? n : sizeof buf - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	c = mbstowcs(NULL, buf, 0);
	return c == (size_t)-1 ? (int)n : (int)c;
}

/* The bytes of s (up to a new line) that fit in w columns, cut after a blank when one is
 * there; at least one character. */
static size_t pane_text_fit(const char *s, int w)
{
	size_t len = strcspn(s, "\n"), fit = len, cut = 0;

	while (fit > 0 && pane_text_cols(s, fit) > w)
		fit--;
	if (fit == len)
		return len;
	for (size_t i = fit; i > 0; i--)
		if (s[i] == ' ') {
			cut = i;
			break;
		}
	return cut > 0 ? cut : fit > 0 ? fit : 1;
}

/* Print text wrapped at w columns in rows y..y+h-1, from its line first on. */
int pane_text(const pane *p, const char *text, size_t first, int y, int h, int x, int w,
              enum pane_role role)
{
	int rows = 0;
	char line[512];

	for (const char *s = text; w > 0 && *s != '\0';) {
		size_t n = pane_text_fit(s, w);

		if (rows >= (int)first && rows - (int)first < h) {
			snprintf(line, sizeof line, "%.*s", (int)n, s);
			pane_put(p, y + rows - (int)first, x, w, role, line);
		}
		rows++;
		s += n;
		while (*s == ' ')
			s++;
		if (*s == '\n')
			s++;
	}
	return rows;
}
