/* The graph view: the current d x d estimate as a heat map (row = parent, column = child),
 * the algorithm's unthresholded weights when it has them, else the marks of its result.  Each
 * cell is two columns: a mark comparing it with the truth at the display threshold, drawn in
 * the colour the legend gives it, then, for weights, a shade of |w| (a blue or magenta
 * background with colours, a block or ASCII character without), so that the comparison never
 * rests on colour alone and the two meanings never share a colour.  A cursor names the cell
 * under it (it opens on the first edge); the map scrolls to keep the cursor in sight when d
 * exceeds the screen. */
#include "config.h"

#include <math.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "pane-int.h"

/* What one cell is, against the truth at the display threshold. */
enum cell_kind {
	CELL_NONE = 0,  /* no edge either way */
	CELL_EDGE,      /* an estimated edge (no truth) */
	CELL_CORRECT,   /* estimated and true */
	CELL_EXTRA,     /* estimated, no true edge between the two */
	CELL_REVERSED,  /* estimated, the true edge goes the other way */
	CELL_FOUNDREV,  /* true, estimated the other way */
	CELL_MISSING,   /* true, not estimated either way */
	CELL_NKINDS,    /* how many */
};

/* Each kind's mark, role and name for the legend. */
static const struct {
	char mark;           /* the character */
	enum pane_role role; /* its attributes off the heat colours */
	const char *name;    /* legend */
} kinds[CELL_NKINDS] = {
	[CELL_NONE] = { ' ', ROLE_TEXT, "" },
	[CELL_EDGE] = { '*', ROLE_TITLE, "edge" },
	[CELL_CORRECT] = { '*', ROLE_GOOD, "correct" },
	[CELL_EXTRA] = { '+', ROLE_BAD, "extra" },
	[CELL_REVERSED] = { 'x', ROLE_BAD, "reversed" },
	[CELL_FOUNDREV] = { 'o', ROLE_MISS, "true, found reversed" },
	[CELL_MISSING] = { '-', ROLE_MISS, "missing" },
};

/* Whether the estimate has the edge i -> j at the display threshold. */
static bool graph_est(const pane *p, size_t i, size_t j)
{
	const pane_graph *g = &p->g;

	if (i == j)
		return false;
	if (g->w != NULL)
		return fabs(g->w[i * g->d + j]) > p->thr;
	return g->mark != NULL && g->mark[i * g->d + j];
}

/* The kind of cell (i, j). */
static enum cell_kind graph_kind(const pane *p, size_t i, size_t j)
{
	const fb_graph *t = p->run->truth;
	bool est = graph_est(p, i, j), tru, back;

	if (t == NULL || t->d != p->g.d)
		return est ? CELL_EDGE : CELL_NONE;
	tru = t->mark[i * t->d + j];
	back = t->mark[j * t->d + i];
	if (est && back && p->g.w == NULL && graph_est(p, j, i)) /* undirected over a true edge */
		return CELL_CORRECT;
	if (est)
		return tru ? CELL_CORRECT : back ? CELL_REVERSED : CELL_EXTRA;
	if (tru)
		return graph_est(p, j, i) ? CELL_FOUNDREV : CELL_MISSING;
	return CELL_NONE;
}

/* The shade level of cell (i, j): 0 below the threshold, 1..PANE_HEAT_LEVELS above. */
static int graph_level(const pane *p, size_t i, size_t j)
{
	const pane_graph *g = &p->g;
	double a;

	if (!graph_est(p, i, j))
		return 0;
	if (g->w == NULL)
		return PANE_HEAT_LEVELS;
	a = fabs(g->w[i * g->d + j]) / (g->wmax > 0 ? g->wmax : 1);
	return a >= 1 ? PANE_HEAT_LEVELS : 1 + (int)(a * PANE_HEAT_LEVELS);
}

/* A name in at most n columns, counting multibyte characters as one, in out: whole when it
 * fits, else its start, an ellipsis and its trailing digits (Variable12 as Var~12), so that
 * numbered names stay apart; returns out. */
static const char *graph_abbrev(const pane *p, const char *name, size_t n, char *out,
                                size_t len)
{
	wchar_t ws[256], ab[256];
	size_t wn = mbstowcs(ws, name, sizeof ws / sizeof *ws - 1), digits = 0, head;

	if (wn == (size_t)-1) { /* not text in this locale: bytes */
		snprintf(out, len, "%.*s", (int)n, name);
		return out;
	}
	if (wn <= n || n < 2) { /* whole, or as much as two columns or fewer hold */
		ws[wn <= n ? wn : n] = L'\0';
		if (wcstombs(out, ws, len) == (size_t)-1)
			snprintf(out, len, "?");
		out[len - 1] = '\0';
		return out;
	}
	while (digits < wn && iswdigit((wint_t)ws[wn - 1 - digits]))
		digits++;
	if (digits == wn || digits + 2 > n)
		digits = 0;
	head = n - 1 - digits;
	wmemcpy(ab, ws, head);
	ab[head] = p->utf8 ? L'\u2026' : L'~';
	wmemcpy(ab + head + 1, ws + wn - digits, digits);
	ab[n] = L'\0';
	if (wcstombs(out, ab, len) == (size_t)-1)
		snprintf(out, len, "?");
	out[len - 1] = '\0';
	return out;
}

/* The shade of a level: a block or ASCII character (drawn when there are no colours). */
static wchar_t graph_shade_char(const pane *p, int level)
{
	static const wchar_t blocks[] = L" \u2591\u2592\u2593\u2588", ascii[] = L" :=%#";

	return (p->utf8 ? blocks : ascii)[level < 0 ? 0 : level];
}

/* Draw cell (i, j) at (y, x): the mark in its kind's colour (a dim / where the knowledge
 * forbids i -> j and there is no edge), then the shade of |w|. */
static void graph_cell(const pane *p, size_t i, size_t j, int y, int x)
{
	const pane_graph *g = &p->g;
	int level = g->w != NULL ? graph_level(p, i, j) : 0;
	enum cell_kind k = graph_kind(p, i, j);
	bool neg = g->w != NULL && g->w[i * g->d + j] < 0;
	wchar_t mark = i == j ? L' ' : (wchar_t)kinds[k].mark, shade = L' ';
	attr_t ma = pane_attr(p, kinds[k].role), sa = A_NORMAL;

	if (i != j && level == 0 && g->w != NULL && g->w[i * g->d + j] != 0) {
		shade = p->utf8 ? L'\u00b7' : L'.'; /* a weight at or under the threshold */
		sa = pane_attr(p, ROLE_DIM);
	} else if (level > 0) {
		sa = pane_heat_attr(p, level, neg);
		if (!p->colour)
			shade = graph_shade_char(p, level);
	}
	if (i != j && mark == L' ' && fb_knowledge_forbids(fb_run_knowledge(p->run), i, j)) {
		mark = L'/'; /* the knowledge forbids i -> j */
		ma = pane_attr(p, ROLE_DIM);
	}
	if (i == p->cur_r && j == p->cur_c)
		ma = sa = pane_attr(p, ROLE_CURSOR) | A_BOLD;
	attrset(ma);
	mvaddnwstr(y, x, &mark, 1);
	attrset(sa);
	mvaddnwstr(y, x + 1, &shade, 1);
	attrset(A_NORMAL);
}

/* Counts of each kind, per pair as the library scores them (an undirected edge is one
 * edge); returns the estimated edges.  Without a truth only CELL_EDGE is counted. */
static size_t graph_count(pane *p, size_t *count)
{
	const fb_score *s = pane_graph_score(p);
	size_t edges = 0;

	memset(count, 0, CELL_NKINDS * sizeof *count);
	for (size_t i = 0; i < p->g.d; i++)
		for (size_t j = i + 1; j < p->g.d; j++)
			edges += graph_est(p, i, j) || graph_est(p, j, i);
	if (s == NULL) {
		count[CELL_EDGE] = edges;
		return edges;
	}
	count[CELL_CORRECT] = (size_t)s->tp;
	count[CELL_EXTRA] = (size_t)s->extra;
	count[CELL_REVERSED] = count[CELL_FOUNDREV] = (size_t)s->reversed;
	count[CELL_MISSING] = (size_t)s->missing;
	return (size_t)s->nnz;
}

/* The summary and the legend (two rows); the first ends with the score in words. */
static void graph_summary(pane *p, int y, int w)
{
	size_t c[CELL_NKINDS], edges = graph_count(p, c);
	const fb_score *s = pane_graph_score(p);
	char words[160], text[200] = "";
	int x = 1;

	if (s != NULL)
		snprintf(text, sizeof text, "; %s", fb_score_text(s, true, words, sizeof words));
	if (p->g.w != NULL)
		pane_putf(p, y, 1, w - 2, ROLE_TEXT, "weights at round %zu, |w| > %.2f (t/T): %zu "
		          "edges, largest |w| %.3g%s", p->g.round, p->thr, edges, p->g.wmax, text);
	else
		pane_putf(p, y, 1, w - 2, ROLE_TEXT, "the estimate's edges at round %zu: %zu (the "
		          "algorithm gives no weights)%s", p->g.round, edges, text);
	for (int k = CELL_EDGE; k < CELL_NKINDS; k++) {
		if ((p->run->truth == NULL) != (k == CELL_EDGE))
			continue;
		char item[64];
		int len = snprintf(item, sizeof item, " %s %zu", kinds[k].name, c[k]);

		pane_putf(p, y + 1, x, w - x, kinds[k].role, "%c", kinds[k].mark);
		pane_put(p, y + 1, x + 1, w - x - 1, ROLE_TEXT, item);
		x += 1 + len + 2;
	}
	if (p->run->truth == NULL)
		pane_put(p, y + 1, x + 1, w - x - 2, ROLE_DIM, "(no truth to compare with)");
}

/* One item of the reading guide at (*y, *x), on the next of its two rows when it does not
 * fit: a sample drawn with attributes a (none when sample is 0), then the text. */
static void graph_guide_item(const pane *p, int *y, int *x, int y0, int w, wchar_t sample,
                             attr_t a, const char *text)
{
	int need = (sample != 0 ? 2 : 0) + (int)mbstowcs(NULL, text, 0);

	if (*x > 1 && *x + need > w - 1 && *y == y0) {
		(*y)++;
		*x = 1;
	}
	if (sample != 0) {
		attrset(a);
		mvaddnwstr(*y, *x, &sample, 1);
		attrset(A_NORMAL);
		*x += 2;
	}
	pane_put(p, *y, *x, w - 1 - *x, ROLE_DIM, text);
	*x += need - (sample != 0 ? 2 : 0) + 2;
}

/* How to read the map, in one or two rows from y: rows are the parents, what the dot and
 * the shades mean; returns the rows used. */
static int graph_guide(const pane *p, int y, int w)
{
	int x = 1, row = y;

	graph_guide_item(p, &row, &x, y, w, 0, 0, "rows are parents, columns children "
	                 "(row -> column)");
	if (!fb_knowledge_is_empty(fb_run_knowledge(p->run)))
		graph_guide_item(p, &row, &x, y, w, L'/', pane_attr(p, ROLE_DIM),
		                 "forbidden by the knowledge");
	if (p->g.w == NULL)
		return row - y + 1;
	graph_guide_item(p, &row, &x, y, w, p->utf8 ? L'\u00b7' : L'.', pane_attr(p, ROLE_DIM),
	                 "under the threshold");
	if (p->colour) {
		graph_guide_item(p, &row, &x, y, w, L' ', pane_heat_attr(p, PANE_HEAT_LEVELS, true),
		                 "w < 0");
		graph_guide_item(p, &row, &x, y, w, L' ', pane_heat_attr(p, PANE_HEAT_LEVELS, false),
		                 "w > 0");
		graph_guide_item(p, &row, &x, y, w, 0, 0, "pale: small |w|");
	} else {
		char text[64];

		snprintf(text, sizeof text, "%lc%lc%lc%lc |w| from small to largest",
		         (wint_t)graph_shade_char(p, 1), (wint_t)graph_shade_char(p, 2),
		         (wint_t)graph_shade_char(p, 3), (wint_t)graph_shade_char(p, 4));
		graph_guide_item(p, &row, &x, y, w, 0, 0, text);
	}
	return row - y + 1;
}

/* The line naming the cell under the cursor. */
static void graph_cursor_line(const pane *p, int y, int w)
{
	const fb_dataset *ds = p->run->data;
	size_t i = p->cur_r, j = p->cur_c;
	enum cell_kind k = graph_kind(p, i, j);
	char wv[40] = "";

	if (i == j) {
		pane_putf(p, y, 1, w - 2, ROLE_TEXT, "%s itself: the diagonal (no edge)  (arrows "
		          "move, PgUp/PgDn page)", ds->vars[i].name);
		return;
	}
	if (p->g.w != NULL)
		snprintf(wv, sizeof wv, "  w = %.4g", p->g.w[i * p->g.d + j]);
	pane_putf(p, y, 1, w - 2, ROLE_TEXT, "%s -> %s%s%s%s  (arrows move, PgUp/PgDn page)",
	          ds->vars[i].name, ds->vars[j].name, wv, k != CELL_NONE ? ": " : "",
	          kinds[k].name);
}

/* Put the cursor on the first edge of the estimate, else on the first cell the truth has,
 * else on the first cell off the diagonal. */
static void graph_cursor_first(pane *p)
{
	size_t d = p->g.d, best = SIZE_MAX;

	for (size_t i = 0; i < d && best == SIZE_MAX; i++)
		for (size_t j = 0; j < d && best == SIZE_MAX; j++)
			if (i != j && graph_est(p, i, j))
				best = i * d + j;
	for (size_t i = 0; i < d && best == SIZE_MAX; i++)
		for (size_t j = 0; j < d && best == SIZE_MAX; j++)
			if (i != j && graph_kind(p, i, j) != CELL_NONE)
				best = i * d + j;
	if (best == SIZE_MAX)
		best = d > 1 ? 1 : 0;
	p->cur_r = best / (d > 0 ? d : 1);
	p->cur_c = best % (d > 0 ? d : 1);
	p->cur_placed = true;
}

/* Keep the cursor in the window of vr rows and vc columns. */
static void graph_follow(pane *p, size_t vr, size_t vc)
{
	if (p->cur_r < p->top_r)
		p->top_r = p->cur_r;
	if (p->cur_r >= p->top_r + vr)
		p->top_r = p->cur_r - vr + 1;
	if (p->cur_c < p->left_c)
		p->left_c = p->cur_c;
	if (p->cur_c >= p->left_c + vc)
		p->left_c = p->cur_c - vc + 1;
}

/* The column labels, written downwards, lh rows from y, their last letters next to the
 * cells. */
static void graph_col_labels(const pane *p, int y, int lh, int x0, size_t vc)
{
	const fb_dataset *ds = p->run->data;

	for (size_t j = p->left_c; j < p->g.d && j < p->left_c + vc; j++) {
		char ab[64];
		wchar_t ws[16];
		int x = x0 + 2 * (int)(j - p->left_c), n;

		graph_abbrev(p, ds->vars[j].name, (size_t)lh, ab, sizeof ab);
		n = (int)mbstowcs(ws, ab, sizeof ws / sizeof *ws);
		if (n < 0)
			continue;
		attrset(pane_attr(p, j == p->cur_c ? ROLE_KEY : ROLE_AXIS));
		for (int r = 0; r < n; r++)
			mvaddnwstr(y + lh - n + r, x, &ws[r], 1);
		attrset(A_NORMAL);
	}
}

/* Rows of the column labels: the longest name's length, at most 8, fewer (not under 3)
 * while that would hide rows of the map. */
static int graph_label_rows(const pane *p, size_t maxlen, int h)
{
	int lh = maxlen > 8 ? 8 : (int)maxlen;

	while (lh > 3 && (size_t)(h - lh) < p->g.d)
		lh--;
	return lh;
}

/* The matrix: labels and cells. */
static void graph_matrix(pane *p, int y, int h, int w)
{
	const fb_dataset *ds = p->run->data;
	size_t maxlen = 1;
	int lh, rl, x0;
	size_t vr, vc;

	for (size_t i = 0; i < p->g.d; i++) {
		size_t n = mbstowcs(NULL, ds->vars[i].name, 0);

		n = n == (size_t)-1 ? strlen(ds->vars[i].name) : n;
		maxlen = n > maxlen ? n : maxlen;
	}
	lh = graph_label_rows(p, maxlen, h);
	rl = maxlen > 10 ? 10 : (int)maxlen;
	x0 = 1 + rl + 1;
	if (h - lh < 1 || w - x0 < 2)
		return;
	vr = (size_t)(h - lh);
	vc = (size_t)((w - x0) / 2);
	graph_follow(p, vr, vc);
	graph_col_labels(p, y, lh, x0, vc);
	for (size_t i = p->top_r; i < p->g.d && i < p->top_r + vr; i++) {
		int row = y + lh + (int)(i - p->top_r);
		char ab[64];

		graph_abbrev(p, ds->vars[i].name, (size_t)rl, ab, sizeof ab);
		pane_putf(p, row, 1 + rl - (int)mbstowcs(NULL, ab, 0), rl,
		          i == p->cur_r ? ROLE_KEY : ROLE_AXIS, "%s", ab);
		for (size_t j = p->left_c; j < p->g.d && j < p->left_c + vc; j++)
			graph_cell(p, i, j, row, x0 + 2 * (int)(j - p->left_c));
	}
}

/* Move the graph cursor. */
void pane_graph_move(pane *p, long dr, long dc)
{
	long d = (long)p->run->data->d, r = (long)p->cur_r + dr, c = (long)p->cur_c + dc;

	r = r < 0 ? 0 : r >= d ? d - 1 : r;
	c = c < 0 ? 0 : c >= d ? d - 1 : c;
	p->cur_r = (size_t)(r < 0 ? 0 : r);
	p->cur_c = (size_t)(c < 0 ? 0 : c);
}

/* The graph view. */
void pane_draw_graph(pane *p, int top, int h, int w)
{
	int used;

	pane_graph_update(p);
	if (p->g.w == NULL && p->g.mark == NULL) {
		pane_text(p, p->g.why[0] ? p->g.why : "no estimate yet", 0, top + 1, h - 1, 1, w - 2,
		          ROLE_DIM);
		return;
	}
	if (!p->cur_placed || p->cur_r >= p->g.d || p->cur_c >= p->g.d)
		graph_cursor_first(p);
	graph_summary(p, top, w);
	used = 2 + graph_guide(p, top + 2, w);
	graph_matrix(p, top + used + 1, h - used - 2, w - 1);
	graph_cursor_line(p, top + h - 1, w);
}

/* The estimate's heat map against the truth without the reading guide, rows y..y+h-1. */
void pane_graph_heat(pane *p, int y, int h, int w)
{
	pane_graph_update(p);
	if (p->g.w == NULL && p->g.mark == NULL) {
		pane_put(p, y, 1, w - 2, ROLE_DIM, p->g.why[0] ? p->g.why : "no estimate yet");
		return;
	}
	if (!p->cur_placed || p->cur_r >= p->g.d || p->cur_c >= p->g.d)
		graph_cursor_first(p);
	graph_summary(p, y, w);
	graph_matrix(p, y + 2, h - 2, w - 1);
}
