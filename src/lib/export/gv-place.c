/* Finishing a layout that Graphviz did not arrange as a whole (nop on fixed positions, sfdp):
 * weight labels put beside their edges where nothing else is, legends and headings moved
 * clear of the graph, and the title and bounding box fitted around the result. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gv-int.h"

/* Points sampled along each cubic piece of an edge's spline. */
#define PLACE_SAMPLES 8
/* Gap in points between a label and its edge, and around every box. */
#define PLACE_GAP 2.0

/* An axis-aligned box in points. */
struct box {
	double x0, y0, x1, y1; /* lower-left and upper-right corners */
};

/* One edge as a polyline through its spline and arrowheads. */
struct line {
	Agedge_t *e;  /* the edge */
	size_t panel; /* the panel it is drawn in */
	pointf *pt;  /* its points (owned) */
	size_t n;    /* how many */
};

/* What the labels must keep clear of, and the edges they should not cross. */
struct scene {
	struct box *hard;   /* nodes, arrowheads and labels already placed */
	size_t nhard, cap;  /* boxes used and allocated */
	struct line *lines; /* every edge */
	size_t nlines;      /* how many */
};

/* Whether boxes a and b overlap. */
static bool box_overlap(const struct box *a, const struct box *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* The box of width w and height h centred on c. */
static struct box box_at(pointf c, double w, double h)
{
	struct box b = { c.x - w / 2.0, c.y - h / 2.0, c.x + w / 2.0, c.y + h / 2.0 };

	return b;
}

/* Grow a to hold b. */
static void box_join(struct box *a, const struct box *b)
{
	a->x0 = fmin(a->x0, b->x0);
	a->y0 = fmin(a->y0, b->y0);
	a->x1 = fmax(a->x1, b->x1);
	a->y1 = fmax(a->y1, b->y1);
}

/* An empty box that box_join fills. */
static struct box box_empty(void)
{
	struct box b = { HUGE_VAL, HUGE_VAL, -HUGE_VAL, -HUGE_VAL };

	return b;
}

/* Whether the segment a-b passes through box r (Liang-Barsky clipping). */
static bool segment_hits(pointf a, pointf b, const struct box *r)
{
	double t0 = 0.0, t1 = 1.0, dx = b.x - a.x, dy = b.y - a.y;
	double p[4] = { -dx, dx, -dy, dy };
	double q[4] = { a.x - r->x0, r->x1 - a.x, a.y - r->y0, r->y1 - a.y };

	for (int k = 0; k < 4; k++) {
		if (p[k] == 0.0) {
			if (q[k] < 0.0)
				return false;
			continue;
		}
		double t = q[k] / p[k];

		if (p[k] < 0.0)
			t0 = fmax(t0, t);
		else
			t1 = fmin(t1, t);
		if (t0 > t1)
			return false;
	}
	return true;
}

/* Add box b to the scene's obstacles. */
static void scene_block(struct scene *s, struct box b)
{
	if (s->nhard == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->hard = fb_xreallocarray(s->hard, s->cap, sizeof *s->hard);
	}
	s->hard[s->nhard++] = b;
}

/* Whether b is clear of every obstacle. */
static bool scene_free(const struct scene *s, const struct box *b)
{
	for (size_t k = 0; k < s->nhard; k++)
		if (box_overlap(b, &s->hard[k]))
			return false;
	return true;
}

/* How many edges other than own pass through b. */
static size_t scene_crossings(const struct scene *s, const struct box *b, Agedge_t *own)
{
	size_t hits = 0;

	for (size_t k = 0; k < s->nlines; k++) {
		const struct line *l = &s->lines[k];

		if (l->e == own)
			continue;
		for (size_t m = 0; m + 1 < l->n; m++)
			if (segment_hits(l->pt[m], l->pt[m + 1], b)) {
				hits++;
				break;
			}
	}
	return hits;
}

/* Distance from q to the segment a-b. */
static double segment_distance(pointf q, pointf a, pointf b)
{
	double dx = b.x - a.x, dy = b.y - a.y, len2 = dx * dx + dy * dy;
	double t = len2 > 0.0 ? ((q.x - a.x) * dx + (q.y - a.y) * dy) / len2 : 0.0;

	t = fmin(fmax(t, 0.0), 1.0);
	return hypot(q.x - a.x - t * dx, q.y - a.y - t * dy);
}

/* Distance from q to the polyline l. */
static double line_distance(pointf q, const struct line *l)
{
	double best = HUGE_VAL;

	for (size_t m = 0; m + 1 < l->n; m++)
		best = fmin(best, segment_distance(q, l->pt[m], l->pt[m + 1]));
	return best;
}

/* Whether some edge other than own's passes nearer to q than own: a label there would be
 * read as that edge's. */
static bool scene_misleads(const struct scene *s, pointf q, const struct line *own)
{
	double mine = line_distance(q, own);

	for (size_t k = 0; k < s->nlines; k++)
		if (s->lines[k].e != own->e && line_distance(q, &s->lines[k]) < mine)
			return true;
	return false;
}

/* The point at t in [0, 1] of the cubic Bezier c[0..3]. */
static pointf cubic_at(const pointf *c, double t)
{
	double u = 1.0 - t, a = u * u * u, b = 3 * u * u * t, d = 3 * u * t * t, f = t * t * t;
	pointf q = { a * c[0].x + b * c[1].x + d * c[2].x + f * c[3].x,
	             a * c[0].y + b * c[1].y + d * c[2].y + f * c[3].y };

	return q;
}

/* Append q to l's points. */
static void line_add(struct line *l, pointf q)
{
	l->pt = fb_xreallocarray(l->pt, l->n + 1, sizeof *l->pt);
	l->pt[l->n++] = q;
}

/* Sample e's spline into l, arrow tips included; block each arrowhead in s. */
static void line_sample(struct scene *s, struct line *l, Agedge_t *e)
{
	l->e = e;
	for (int b = 0; ED_spl(e) != NULL && b < ED_spl(e)->size; b++) {
		const bezier *bz = &ED_spl(e)->list[b];

		if (bz->sflag)
			line_add(l, bz->sp);
		for (int k = 0; k + 3 < bz->size; k += 3)
			for (int m = k == 0 ? 0 : 1; m <= PLACE_SAMPLES; m++)
				line_add(l, cubic_at(&bz->list[k], (double)m / PLACE_SAMPLES));
		if (bz->eflag)
			line_add(l, bz->ep);
		if (bz->sflag && bz->size > 0)
			scene_block(s, (struct box){ fmin(bz->sp.x, bz->list[0].x) - 3,
			                             fmin(bz->sp.y, bz->list[0].y) - 3,
			                             fmax(bz->sp.x, bz->list[0].x) + 3,
			                             fmax(bz->sp.y, bz->list[0].y) + 3 });
		if (bz->eflag && bz->size > 0) {
			pointf last = bz->list[bz->size - 1];

			scene_block(s, (struct box){ fmin(bz->ep.x, last.x) - 3,
			                             fmin(bz->ep.y, last.y) - 3,
			                             fmax(bz->ep.x, last.x) + 3,
			                             fmax(bz->ep.y, last.y) + 3 });
		}
	}
}

/* The box of node n. */
static struct box node_box(Agnode_t *n)
{
	return box_at(ND_coord(n), ND_width(n) * 72.0, ND_height(n) * 72.0);
}

/* Fill s with the box of every variable's node, the polyline of every edge and its
 * arrowheads, panel by panel (legends and headings are placed afterwards). */
static void scene_build(struct scene *s, const struct gv_picture *p)
{
	size_t ne = (size_t)agnedges(p->g), k = 0;

	memset(s, 0, sizeof *s);
	s->lines = fb_xcalloc(ne > 0 ? ne : 1, sizeof *s->lines);
	for (size_t i = 0; i < p->npanels * p->d; i++) {
		Agnode_t *n = p->nodes[i];

		scene_block(s, node_box(n));
		for (Agedge_t *e = agfstout(p->g, n); e != NULL && k < ne; e = agnxtout(p->g, e)) {
			s->lines[k].panel = i / p->d;
			line_sample(s, &s->lines[k++], e);
		}
	}
	s->nlines = k;
}

/* Free the scene. */
static void scene_release(struct scene *s)
{
	for (size_t k = 0; k < s->nlines; k++)
		free(s->lines[k].pt);
	free(s->lines);
	free(s->hard);
}

/* The size of e's label box: Graphviz's estimate, and at least 0.6 em per character by 1.2 em
 * high, so that a renderer with wider glyphs still fits, plus the gap. */
static pointf label_size(const textlabel_t *lab)
{
	double em = lab->fontsize > 0 ? lab->fontsize : GV_EDGE_FONTSIZE;
	pointf size = { fmax(lab->dimen.x, 0.6 * em * (double)strlen(lab->text)) + PLACE_GAP,
	                fmax(lab->dimen.y, 1.2 * em) + PLACE_GAP };

	return size;
}

/* The point at fraction f of l's length into *at, its unit direction into *dir. */
static void line_point(const struct line *l, double f, pointf *at, pointf *dir)
{
	double total = 0.0, want, run = 0.0;
	size_t m;

	for (m = 0; m + 1 < l->n; m++)
		total += hypot(l->pt[m + 1].x - l->pt[m].x, l->pt[m + 1].y - l->pt[m].y);
	want = f * total;
	for (m = 0; m + 2 < l->n; m++) {
		double len = hypot(l->pt[m + 1].x - l->pt[m].x, l->pt[m + 1].y - l->pt[m].y);

		if (run + len >= want)
			break;
		run += len;
	}
	double dx = l->pt[m + 1].x - l->pt[m].x, dy = l->pt[m + 1].y - l->pt[m].y;
	double len = hypot(dx, dy), t = len > 0.0 ? (want - run) / len : 0.0;

	at->x = l->pt[m].x + fmin(fmax(t, 0.0), 1.0) * dx;
	at->y = l->pt[m].y + fmin(fmax(t, 0.0), 1.0) * dy;
	dir->x = len > 0.0 ? dx / len : 1.0;
	dir->y = len > 0.0 ? dy / len : 0.0;
}

/* Fractions of an edge's length tried for its label, the middle first. */
static const double label_spots[] = { 0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78 };

/* Rings of spots tried around an edge: touching it, then one to three label heights out. */
#define PLACE_RINGS 4

/* The best clear spot beside l into *best: fewest crossed edges (10 each), not nearer
 * another edge than its own (12), then nearest the edge (4 a ring), then nearest the middle;
 * false when every spot is blocked. */
static bool label_best(const struct scene *s, const struct line *l, pointf size, pointf *best)
{
	double best_score = HUGE_VAL;

	for (int ring = 0; ring < PLACE_RINGS; ring++)
		for (size_t k = 0; k < sizeof label_spots / sizeof label_spots[0]; k++)
			for (int side = -1; side <= 1; side += 2) {
				pointf at, dir, c;
				double nx, ny, reach, score;
				struct box b;

				line_point(l, label_spots[k], &at, &dir);
				nx = -dir.y * side;
				ny = dir.x * side;
				reach = (fabs(nx) * size.x + fabs(ny) * size.y) / 2.0 + PLACE_GAP +
				        ring * size.y;
				c.x = at.x + nx * reach;
				c.y = at.y + ny * reach;
				b = box_at(c, size.x, size.y);
				score = 4.0 * ring + (double)k;
				if (score >= best_score || !scene_free(s, &b))
					continue;
				score += 10.0 * (double)scene_crossings(s, &b, l->e);
				if (score < best_score && scene_misleads(s, c, l))
					score += 12.0;
				if (score >= best_score)
					continue;
				best_score = score;
				*best = c;
			}
	return best_score < HUGE_VAL;
}

/* A clear spot for a box of size around the middle of l, searched outwards in a spiral. */
static pointf label_spiral(const struct scene *s, const struct line *l, pointf size)
{
	pointf mid, dir, c;
	struct box b;

	line_point(l, 0.5, &mid, &dir);
	for (int r = 1; r < 400; r++)
		for (int a = 0; a < 24; a++) {
			c.x = mid.x + r * size.y * cos(a * M_PI / 12.0);
			c.y = mid.y + r * size.y * sin(a * M_PI / 12.0);
			b = box_at(c, size.x, size.y);
			if (scene_free(s, &b))
				return c;
		}
	return mid;
}

/* Put the label of l's edge (if any) in the best clear spot and block it. */
static void label_place(struct scene *s, const struct line *l)
{
	textlabel_t *lab = ED_label(l->e);
	pointf size, c;

	if (lab == NULL || l->n < 2)
		return;
	size = label_size(lab);
	if (!label_best(s, l, size, &c))
		c = label_spiral(s, l, size);
	lab->pos = c;
	lab->set = TRUE;
	scene_block(s, box_at(c, size.x, size.y));
}

/* The box of panel k's graph: its nodes, edges and their labels. */
static struct box panel_box(const struct gv_picture *p, const struct scene *s, size_t k)
{
	struct box bb = box_empty(), b;

	for (size_t i = 0; i < p->d; i++) {
		b = node_box(p->nodes[k * p->d + i]);
		box_join(&bb, &b);
	}
	for (size_t m = 0; m < s->nlines; m++) {
		const struct line *l = &s->lines[m];
		textlabel_t *lab = ED_label(l->e);

		if (l->panel != k)
			continue;
		for (size_t q = 0; q < l->n; q++) {
			b = box_at(l->pt[q], 0.0, 0.0);
			box_join(&bb, &b);
		}
		if (lab != NULL && lab->set) {
			pointf size = label_size(lab);

			b = box_at(lab->pos, size.x, size.y);
			box_join(&bb, &b);
		}
	}
	return bb;
}

/* Move node n (a plaintext legend or heading) so that its centre is c. */
static void node_move(Agnode_t *n, pointf c)
{
	ND_coord(n) = c;
	if (ND_label(n) != NULL)
		ND_label(n)->pos = c;
}

/* Put panel k's heading over and legend under its graph; returns the panel's full box. */
static struct box panel_finish(const struct gv_picture *p, const struct scene *s, size_t k)
{
	struct box bb = panel_box(p, s, k), b;
	double cx = (bb.x0 + bb.x1) / 2.0;

	if (p->legend[k] != NULL) {
		double h = ND_height(p->legend[k]) * 72.0;

		node_move(p->legend[k], (pointf){ cx, bb.y0 - 12.0 - h / 2.0 });
		b = node_box(p->legend[k]);
		box_join(&bb, &b);
	}
	if (p->heading[k] != NULL) {
		double h = ND_height(p->heading[k]) * 72.0;

		node_move(p->heading[k], (pointf){ cx, bb.y1 + 8.0 + h / 2.0 });
		b = node_box(p->heading[k]);
		box_join(&bb, &b);
	}
	return bb;
}

/* Place the labels, legends, headings and title; fit the bounding box around them. */
void gv_finish(struct gv_picture *p)
{
	struct scene s;
	struct box bb = box_empty(), b;
	textlabel_t *title = GD_label(p->g);

	scene_build(&s, p);
	for (size_t m = 0; m < s.nlines; m++)
		label_place(&s, &s.lines[m]);
	for (size_t k = 0; k < p->npanels; k++) {
		b = panel_finish(p, &s, k);
		box_join(&bb, &b);
	}
	if (title != NULL) {
		title->pos.x = (bb.x0 + bb.x1) / 2.0;
		title->pos.y = bb.y1 + 6.0 + title->dimen.y / 2.0;
		b = box_at(title->pos, title->dimen.x, title->dimen.y);
		box_join(&bb, &b);
		title->set = TRUE;
	}
	GD_bb(p->g).LL = (pointf){ bb.x0, bb.y0 };
	GD_bb(p->g).UR = (pointf){ bb.x1, bb.y1 };
	scene_release(&s);
}
