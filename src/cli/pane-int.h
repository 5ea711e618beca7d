/* Inside the pane: its state, the terminal layer, the data it reads from a run and the views
 * that draw it.  Only src/cli/pane*.c include this (it brings in curses). */
#ifndef FEDBN_CLI_PANE_INT_H
#define FEDBN_CLI_PANE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <wchar.h>

#include <curses.h>

#include "fedbn/algo.h"
#include "pane.h"

/* Smallest terminal the pane draws in; below it says so instead. */
#define PANE_MIN_COLS 50
#define PANE_MIN_ROWS 14
/* Shortest time between two frames while rounds run (at most 20 frames a second). */
#define PANE_FRAME_GAP 0.05
/* Drawing may take at most 1 / PANE_DRAW_SHARE of the time while rounds run. */
#define PANE_DRAW_SHARE 40.0

/* The views, in the order v and Tab go through them. */
enum pane_view {
	PANE_PROGRESS = 0, /* header, latest rounds, plots of every figure */
	PANE_GRAPH,        /* weighted adjacency heat map against the truth */
	PANE_CLIENTS,      /* one row per client */
	PANE_MESSAGES,     /* what each client sent and received in the round shown */
	PANE_DETAIL,       /* the algorithm's own figures */
	PANE_NVIEWS,       /* how many */
};

/* What a piece of text means; a colour pair when the terminal has colours, else attributes. */
enum pane_role {
	ROLE_TEXT = 0,  /* plain text */
	ROLE_TITLE,     /* headings */
	ROLE_BAR,       /* the top and bottom bars */
	ROLE_KEY,       /* key names in the bottom bar and the help */
	ROLE_ERROR,     /* failures */
	ROLE_GOOD,      /* correct edges, finished runs */
	ROLE_BAD,       /* extra and reversed edges */
	ROLE_MISS,      /* missing edges */
	ROLE_AXIS,      /* axis labels and frames */
	ROLE_PLOT,      /* plotted lines */
	ROLE_DIM,       /* secondary text, cells below the threshold */
	ROLE_CURSOR,    /* the graph view's cursor */
	ROLE_NROLES,    /* how many */
};

/* Heat levels of the graph view on each side of zero. */
#define PANE_HEAT_LEVELS 4

/* The current estimate as the graph view draws it, computed once per round. */
typedef struct pane_graph {
	size_t round;        /* the round it belongs to (SIZE_MAX: not computed) */
	size_t d;            /* variables */
	double *w;           /* d*d weights (owned), or NULL when the algorithm gives none */
	unsigned char *mark; /* d*d marks of the result when there are no weights (owned) */
	double wmax;         /* largest |w| (1 for marks) */
	char why[FB_ERROR_MAX + 32]; /* why there is no estimate yet, when both are NULL */
	bool scored;         /* score holds the drawn estimate against the truth */
	double scored_thr;   /* the display threshold score was computed at (weights) */
	fb_score score;      /* the drawn estimate's score (fb_score_graph, as result shows) */
} pane_graph;

/* Timing figures of one visit (FEDBN_PANE_STATS). */
typedef struct pane_stats {
	size_t draws[PANE_NVIEWS];  /* frames drawn per view */
	double draw_s[PANE_NVIEWS]; /* seconds spent drawing them */
	double draw_max;            /* the slowest frame */
	size_t rounds;              /* rounds stepped */
	double step_s;              /* seconds inside fb_run_step */
	double loop_s;              /* seconds of the stepping loops, drawing and keys included */
} pane_stats;

/* One visit to the pane. */
typedef struct pane {
	fb_run *run;                /* the run on screen (stepped by the pane) */
	const fb_pane_request *req; /* what the caller asked and the header's labels */
	fb_pane_outcome *out;       /* what the caller learns when the visit ends */
	enum pane_view view;        /* the view on screen */
	bool help;                  /* the key help is shown over the view */
	bool leave;                 /* back to the shell after this turn of the loop */
	bool running;               /* rounds are being stepped */
	size_t batch_left;          /* rounds left in this batch (0: until done) */
	double batch_t0;            /* when the current batch started */
	char num[12];               /* digits typed so far (a count of rounds) */
	char msg[200];              /* the bottom bar's message */
	bool msg_err;               /* it reports a failure */
	double thr;                 /* display threshold on |w| */
	bool colour;                /* colour pairs are in use */
	bool utf8;                  /* braille and block characters can be drawn */
	bool dirty;                 /* something changed since the last frame */
	double last_draw;           /* when the last frame was drawn */
	double draw_cost;           /* mean seconds per frame so far */
	size_t plot_first;          /* first row of plots shown (the progress view scrolls) */
	size_t list_first;          /* first row shown in the clients and detail lists */
	size_t cur_r, cur_c;        /* graph view: the cell under the cursor */
	bool cur_placed;            /* graph view: the cursor was put on the first edge */
	size_t top_r, left_c;       /* graph view: the first row and column shown */
	pane_graph g;               /* the estimate as drawn */
	pane_stats st;              /* timing figures */
	size_t at;                  /* the round shown while looking back (from 1), 0: the
	                               newest; r replays forward from it */
	double pace;                /* rounds a second while running or replaying (0: as fast
	                               as they come) */
	double next_due;            /* when the next round may come at this pace */
} pane;

/* The paces + and - go through, in rounds a second (after the last: as fast as they come). */
#define PANE_PACES { 0.25, 0.5, 1, 2, 4, 8, 16, 32 }

/* ---- pane.c: the loop ---- */

/* Start a batch of n rounds (0: until the run finishes). */
void pane_batch_start(pane *p, size_t n);
/* Stop the batch after the current round, saying why in the bottom bar. */
void pane_batch_stop(pane *p, const char *why);
/* Set the bottom bar's message. */
void pane_say(pane *p, bool err, const char *fmt, ...) FB_PRINTF(3, 4);
/* The number of the round the views show: the one looked back at, else the newest (0
 * before the first). */
size_t pane_upto(const pane *p);
/* The record of that round, or NULL before the first. */
const fb_trace_rec *pane_rec(const pane *p);

/* ---- pane-keys.c ---- */

/* The most keys one action answers to. */
#define PANE_ACTION_KEYS 8

/* One row of the pane's key table: what the keys do, and how the help and the bottom bar
 * name them. */
typedef struct pane_action {
	const char *keys;              /* as the help names them ("space, n") */
	const char *bar;               /* as the bottom bar names them ("n step"), or NULL */
	const char *help;              /* the help's line */
	int key[PANE_ACTION_KEYS];     /* the keys (0 ends the list; none: done elsewhere) */
	void (*act)(pane *p, int ch);  /* what a key does, or NULL */
} pane_action;

/* The pane's keys, in the help's order. */
extern const pane_action pane_actions[];
/* Their number. */
extern const size_t pane_nactions;

/* Handle one key. */
void pane_key(pane *p, int ch);

/* ---- pane-term.c: the terminal ---- */

/* Take the terminal over (the screen is kept between visits); FB_ERR with err when it
 * cannot be. */
int pane_term_open(pane *p, fb_error *err);
/* Give the terminal back as it was, and the signal handlers. */
void pane_term_close(void);
/* Look at the signals that came since the last call: resize, Ctrl-C, SIGTERM, Ctrl-Z. */
void pane_term_signals(pane *p);
/* Whether SIGTERM or SIGHUP asked the program to end (raised again after the close). */
bool pane_term_ending(void);
/* Raise SIGTERM or SIGHUP again now that the terminal is restored. */
void pane_term_reraise(void);
/* Free the kept screen (at exit). */
void pane_term_release(void);

/* ---- pane-color.c ---- */

/* Set up colour pairs, unless the terminal has none or NO_COLOR is set; p->colour. */
void pane_color_init(pane *p);
/* The attributes of a role. */
attr_t pane_attr(const pane *p, enum pane_role role);
/* The attributes of a heat cell: level 1..PANE_HEAT_LEVELS, negative or positive weight. */
attr_t pane_heat_attr(const pane *p, int level, bool negative);

/* ---- pane-data.c: what the views read from the run ---- */

/* A series over rounds: one figure's values, with its name. */
typedef struct pane_series {
	char name[32];     /* figure name */
	double *v;         /* one value per round (owned) */
	size_t n;          /* rounds */
	const fb_run *run; /* the run, whose algorithm names the values of a categorical figure */
	int fig;           /* the figure's index in the trace, or -1 (SHD, edges, bytes) */
	bool steps;        /* categorical: drawn as steps between its values, never as slopes */
} pane_series;

/* Every series the progress view plots over the first upto rounds: the figures, SHD when
 * scored, edges, bytes; returns how many (caller frees with pane_series_free). */
size_t pane_series_all(const fb_run *run, size_t upto, pane_series **out);
/* Free n series. */
void pane_series_free(pane_series *s, size_t n);
/* Whether figure f of the run repeats a column the pane adds itself (edges): left out. */
bool pane_figure_own(const fb_run *run, size_t f);
/* Index of the figure called name in the run's trace, or -1. */
int pane_figure_index(const fb_run *run, const char *name);
/* The largest round count of the run, when its parameters say (max_rounds), else 0. */
size_t pane_max_rounds(const fb_run *run);
/* Bring p->g up to the run's current round. */
void pane_graph_update(pane *p);
/* Free p->g. */
void pane_graph_release(pane_graph *g);
/* The score of the estimate as drawn (the result's marks, or the weights at the display
 * threshold) against the truth, by the library's one scoring function; NULL without a
 * truth or an estimate. */
const fb_score *pane_graph_score(pane *p);
/* Value v of figure f of the run in at most width characters: its name when the algorithm
 * names it (FedPC's layer -1: orient), else as pane_fmt writes it. */
const char *pane_fmt_fig(const fb_run *run, int f, double v, int width, char *buf, size_t len);
/* Format v in at most width characters (numbers as short as they can be). */
const char *pane_fmt(double v, int width, char *buf, size_t len);
const char *pane_fmt_client(const fb_run *run, double v, int width, char *buf, size_t len);
/* Bytes in decimal units, short. */
const char *pane_fmt_bytes(size_t bytes, char *buf, size_t len);

/* ---- drawing ---- */

/* Draw the whole frame (bars, the view or the help, or the too-small notice). */
void pane_draw(pane *p);
/* Print s at (y, x), cut to at most w columns, with a role's attributes. */
void pane_put(const pane *p, int y, int x, int w, enum pane_role role, const char *s);
/* Printf at (y, x), cut to w columns. */
void pane_putf(const pane *p, int y, int x, int w, enum pane_role role, const char *fmt, ...)
	FB_PRINTF(6, 7);
/* The view's name. */
const char *pane_view_name(enum pane_view v);

/* Progress: header figures, latest rounds, plots; rows top..top+h-1. */
void pane_draw_progress(pane *p, int top, int h, int w);
/* Graph: heat map of the estimate against the truth. */
void pane_draw_graph(pane *p, int top, int h, int w);
/* The graph view's heat map of the estimate against the truth, without its guide. */
void pane_graph_heat(pane *p, int top, int h, int w);
/* Clients: one row per client. */
void pane_draw_clients(pane *p, int top, int h, int w);
/* Messages: the round's sentence, the broadcast and what each client sent, sizes always and
 * the values in words where the algorithm writes them. */
void pane_draw_messages(pane *p, int top, int h, int w);
/* Print text in rows y..y+h-1 from its line first on (text lines are cut at '\n' and
 * wrapped at w columns between words); returns how many rows the whole text takes. */
int pane_text(const pane *p, const char *text, size_t first, int y, int h, int x, int w,
              enum pane_role role);
/* Detail: the algorithm's own view (or every figure when it has none). */
void pane_draw_detail(pane *p, int top, int h, int w);
/* The help over the view. */
void pane_draw_help(pane *p, int top, int h, int w);
/* The detail view's table of the last m rounds of the named figures (heads: their column
 * titles) at row y; the rows it used. */
int pane_detail_figures(const pane *p, int y, int m, int w, const char *const *names,
                        const char *const *heads);
/* The detail view's rows y..y+h-1: each client's own figure (what) over the rounds. */
void pane_detail_clients(pane *p, int y, int h, int w, const char *what);
/* The detail of fedcircuit and fedcircuit-em (pane-draw-fedcircuit.c): the clients x
 * variables matrix with its subspaces, the circuit's growth, each client's circuits. */
void pane_detail_fedcircuit(pane *p, int top, int h, int w);
/* The detail of fedpc and fedpc-simple2 (pane-draw-fedpc.c): votes per pair, then the
 * separating sets and the triples they oriented. */
void pane_detail_fedpc(pane *p, int top, int h, int w);

/* A line plot of one series in the box (y, x, h, w): title, labelled axes, braille or ASCII
 * dots, a log scale when the values span decades. */
void pane_plot(const pane *p, const pane_series *s, int y, int x, int h, int w);
/* One row of sparkline cells for values v[0..n-1] (NaN: gap) in w columns at (y, x). */
void pane_spark(const pane *p, const double *v, size_t n, int y, int x, int w);

/* Graph view keys: move the cursor (dr, dc rows and columns; large values page). */
void pane_graph_move(pane *p, long dr, long dc);

#endif
