/* Algorithms as steppers: each algorithm is a table of operations, and a run is one instance
 * of it on one dataset or split.  One step is one communication round (or one outer
 * iteration of a centralised learner); every step appends one record to the run's trace.
 * The caller owns the loop, so that a pane can redraw and Ctrl-C can stop between rounds. */
#ifndef FEDBN_ALGO_H
#define FEDBN_ALGO_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/circuit.h"
#include "fedbn/core.h"
#include "fedbn/dataset.h"
#include "fedbn/fed.h"
#include "fedbn/graph.h"
#include "fedbn/knowledge.h"
#include "fedbn/metrics.h"
#include "fedbn/pag.h"
#include "fedbn/param.h"
#include "fedbn/partition.h"

/* What an algorithm needs and gives (the data and splits it takes: enum fb_algo_accepts). */
enum fb_algo_flags {
	FB_ALGO_LOCAL = 1 << 1,      /* a learner: usable as all:A, sep:A, voting:A, ... */
	FB_ALGO_WEIGHTED = 1 << 3,   /* its result carries meaningful weights (avg:A needs it) */
	FB_ALGO_PARTIAL = 1 << 4,    /* allows a share of clients per round */
	FB_ALGO_NEEDS_TRUTH = 1 << 6, /* its result needs the truth (best:A) */
	FB_ALGO_COMBINATOR = 1 << 7, /* written A:B, over a local learner B */
	FB_ALGO_NEEDS_WEIGHTS = 1 << 8, /* a combinator that needs a weighted learner (avg:) */
	FB_ALGO_CIRCUIT = 1 << 9,    /* its result is a probabilistic circuit, not a graph */
	FB_ALGO_TAKES_CIRCUITS = 1 << 10, /* a combinator that also takes a circuit learner */
	FB_ALGO_REMOTE = 1 << 11,    /* runs with its clients in other processes (over MPI): its
	                                create builds client state only for fb_fed_local clients,
	                                and its client half reads only its own data, its own
	                                state and the broadcast (a combinator: over a learner
	                                that is not a circuit learner) */
	FB_ALGO_SUMMED = 1 << 12,    /* its server needs only the sum over clients of each
	                                client's reply, a vector of numbers (voting: the count
	                                of each mark; avg: the weight matrices; FedDAG: the
	                                parameters it averages), so the federation may hand it
	                                that sum alone (fb_fed_sum, where secure aggregation
	                                goes); where its fb_fed_ops has server_sum it does */
};

/* The data and splits an algorithm takes (fb_algo.accepts): one bit per kind of variables
 * and one per way of holding the rows.  fb_run_alloc checks them, and refuses what an
 * algorithm (or a combinator's learner) does not take in one sentence.  An algorithm that
 * takes no split runs on the whole dataset, and a split given to it is not used; one that
 * takes some split runs over the clients of the split given. */
enum fb_algo_accepts {
	FB_ACCEPTS_CONTINUOUS = 1 << 0, /* every variable continuous */
	FB_ACCEPTS_DISCRETE = 1 << 1,   /* every variable discrete */
	FB_ACCEPTS_MIXED = 1 << 2,      /* some variables of each kind */
	FB_ACCEPTS_ONE = 1 << 3,        /* one dataset, no split */
	FB_ACCEPTS_HORIZONTAL = 1 << 4, /* a horizontal split: every client every variable */
	FB_ACCEPTS_VERTICAL = 1 << 5,   /* a vertical split: every client every row */
	FB_ACCEPTS_HYBRID = 1 << 6,     /* a hybrid split: overlapping rows and variables */
	FB_ACCEPTS_KNOWLEDGE = 1 << 7,  /* background knowledge, honoured in its result */
};
/* Every kind of variables. */
#define FB_ACCEPTS_ANY_DATA (FB_ACCEPTS_CONTINUOUS | FB_ACCEPTS_DISCRETE | FB_ACCEPTS_MIXED)
/* Every kind of split (an algorithm that takes one of them runs over clients). */
#define FB_ACCEPTS_SPLITS (FB_ACCEPTS_HORIZONTAL | FB_ACCEPTS_VERTICAL | FB_ACCEPTS_HYBRID)

/* One round's record. */
typedef struct fb_trace_rec {
	size_t round;        /* from 1 */
	double seconds;      /* wall time of this round */
	size_t bytes_up;     /* bytes clients sent this round */
	size_t bytes_down;   /* bytes the server sent this round */
	double *fig;         /* the algorithm's figures, in the order of its figure names */
	size_t nclients;     /* clients of the round's federation (0: the round had none) */
	bool *took;          /* per client: it took part in this round (nclients, owned) */
	double *client_fig;  /* per client: its own figure of this round (the algorithm's
	                        client_figure), NaN for a client that sat it out; NULL when the
	                        algorithm names no client figure (nclients, owned) */
	double *server_fig;  /* per client: the server's own figure about it this round (the
	                        algorithm's server_figure), NaN where it has none; NULL when the
	                        algorithm names no server figure (nclients, owned) */
	size_t edges;        /* edges of the current estimate */
	bool scored;         /* score holds the estimate's accuracy against the truth */
	fb_score score;      /* accuracy of the current estimate against the truth */
	char *say;           /* one plain sentence saying what the round did, written by the
	                        algorithm's step through fb_run_say, or NULL (owned) */
	size_t *sent;        /* per client: bytes it sent this round (nclients, owned) */
	size_t *received;    /* per client: bytes it received this round (nclients, owned) */
	fb_msg *up;          /* per client: the message it sent (empty when it sat the round
	                        out), while the round's detail is kept (nclients, owned) */
	fb_msg down;         /* the broadcast the clients received this round, likewise */
	unsigned char *mark; /* d*d edge marks of the estimate after this round (as fb_graph's),
	                        while kept, or NULL (owned); read them with fb_trace_rec_marks */
	size_t *mark_at;     /* or, when that takes less memory, the places i*d+j of its marks,
	                        nmark_at of them, in no particular order (owned) */
	size_t nmark_at;
	double *w;           /* d*d unthresholded weights after this round, for algorithms that
	                        give them, while kept, or NULL (owned) */
	double *sum;         /* the sum the server was handed this round (a summed server: nsum
	                        numbers over sum_count clients), while kept, or NULL (owned) */
	size_t nsum, sum_count;
	size_t exchanges;    /* federated rounds the step ran (more than 1: FedPC's orientation
	                        under secure=yes; sum is the last one's) */
	double dp_spent;     /* epsilon of differential privacy spent after this round (0: none) */
	bool est_kept;       /* mark (and w) hold this round's estimate */
	bool msgs_kept;      /* up and down hold this round's messages */
	size_t kept;         /* bytes of the detail kept (mark, w, messages) */
} fb_trace_rec;

/* The d*d edge marks rec kept (rec->est_kept) into out, as fb_graph's. */
void fb_trace_rec_marks(const fb_trace_rec *rec, size_t d, unsigned char *out);

/* How many bytes of per-round detail (estimates and messages) one run keeps; past it the
 * oldest rounds' detail is dropped (the newest round's always stays).  Their figures,
 * sizes, scores and sentences stay for every round. */
#define FB_TRACE_KEEP_BYTES ((size_t)16 << 20)
/* A round's messages are kept only when together they take at most this many bytes. */
#define FB_TRACE_MSG_BYTES ((size_t)1 << 20)

/* The records of a run. */
typedef struct fb_trace {
	fb_trace_rec *r;  /* records, one per round (owned) */
	size_t n, cap;    /* used and allocated */
	size_t nfig;      /* figures per record */
	size_t kept;      /* bytes of detail the records keep, at most keep_max beyond the
	                     newest round's */
	size_t keep_max;  /* the budget (FB_TRACE_KEEP_BYTES unless changed before stepping) */
	size_t kept_from; /* the oldest record that may still keep detail */
} fb_trace;

typedef struct fb_run fb_run;

/* Local fits that combinators may reuse: each a learner's final estimate and weights on one
 * client's rows, found again only for the same learner, the same parameter texts and rows
 * equal bit for bit.  Safe to use from several client threads at once. */
typedef struct fb_fit_memo fb_fit_memo;
/* An empty memo; free with fb_fit_memo_free (NULL is fine). */
fb_fit_memo *fb_fit_memo_alloc(void);
void fb_fit_memo_free(fb_fit_memo *m);
/* Forget every fit. */
void fb_fit_memo_clear(fb_fit_memo *m);
/* Fits handed out so far. */
size_t fb_fit_memo_hits(fb_fit_memo *m);
/* The remembered fit of learner with parameters p on rows: its estimate (caller frees) and,
 * when w is not NULL, its weights copied into w (d*d).  NULL when there is none, or when w
 * asks for weights the fit did not keep. */
fb_graph *fb_fit_memo_find(fb_fit_memo *m, const char *learner, const fb_params *p,
                           const fb_dataset *rows, double *w);
/* Remember the fit of learner with parameters p on rows: estimate g and weights w (d*d, or
 * NULL); all copied. */
void fb_fit_memo_add(fb_fit_memo *m, const char *learner, const fb_params *p,
                     const fb_dataset *rows, const fb_graph *g, const double *w);

/* A learner's options struct as its parameter table fills it: tests check that the defaults
 * the table gives the shell are the library's (fb_algo.options). */
typedef struct fb_algo_options {
	size_t size;                                        /* sizeof the options struct */
	void (*init)(void *opt);                            /* the library's defaults */
	void (*from_params)(const fb_params *p, void *opt); /* the options p gives */
} fb_algo_options;

/* Define static const fb_algo_options var for the options struct type, filled by
 * init(type *) and read by from_params(const fb_params *, type *). */
#define FB_ALGO_OPTIONS(var, type, init_fn, from_fn)                                   \
	static void var##_init(void *opt) { init_fn((type *)opt); }                      \
	static void var##_from(const fb_params *p, void *opt) { from_fn(p, (type *)opt); } \
	static const fb_algo_options var = { sizeof(type), var##_init, var##_from }

/* Which of the shell's detail views draws a run of the algorithm (fb_algo.detail). */
enum fb_algo_detail {
	FB_DETAIL_FIGURES = 0, /* every figure of the last rounds, then each client's own figure */
	FB_DETAIL_PENALTIES,   /* ADMM's penalties and multiplier, each client's consensus distance */
	FB_DETAIL_STRENGTHS,   /* first-layer strengths sqrt(A) against the truth, then the figures */
	FB_DETAIL_RESIDUALS,   /* the server's sqrt(A), then each client's local and global residuals */
	FB_DETAIL_VOTES,       /* votes per pair and separating sets (FedPC) */
	FB_DETAIL_CIRCUITS,    /* the clients x variables matrix of federated circuits */
	FB_DETAIL_MASK,        /* the averaged mask against the truth, each client's objective and
	                          distance from the average (FedDAG) */
};

/* An algorithm. */
/* A named value of a categorical figure: one whose values are cases, not quantities (FedPC's
 * layer, where -1 is the orienting round; a circuit's phase), so that it is drawn as steps
 * and its values read by name. */
typedef struct fb_figure_level {
	const char *figure; /* the figure's name */
	double value;       /* one of its values */
	const char *name;   /* what that value means ("orient") */
} fb_figure_level;

typedef struct fb_algo {
	const char *name;             /* "notears-admm" */
	const char *summary;          /* one line */
	const char *intro;            /* two or three plain sentences for a newcomer: what it does */
	const char *help;             /* a paragraph: what it computes, its source, its defaults */
	unsigned flags;               /* enum fb_algo_flags */
	unsigned accepts;             /* enum fb_algo_accepts: the data and splits it takes */
	const fb_param_def *params;   /* its parameters (NULL-name terminated) */
	const char *const *figures;   /* names of its per-round figures (NULL terminated) */
	const fb_figure_level *levels; /* named values of its categorical figures (a NULL figure
	                                  ends them), or NULL */
	const char *client_figure;    /* name of each client's own figure, or NULL */
	const char *server_figure;    /* name of the server's figure about each client, or NULL */
	/* Build run->state from run->params and the data; FB_ERR with the reason (destroy is
	 * then called when run->state is set, so it must free a partly built state). */
	int (*create)(fb_run *run, fb_error *err);
	/* One round; fills fig (one per figure name). */
	int (*step)(fb_run *run, double *fig, fb_error *err);
	/* Whether the algorithm has finished. */
	bool (*done)(const fb_run *run);
	/* The current estimate, post-processed (caller frees); NULL with the reason. */
	fb_graph *(*result)(const fb_run *run, fb_error *err);
	/* Optional: the graph result() would copy, itself (read only, until the next step), so
	 * that each round is recorded and scored without a copy of a large graph. */
	const fb_graph *(*graph)(const fb_run *run);
	/* Free run->state. */
	void (*destroy)(fb_run *run);
	/* Optional: a sentence on how the result was made (post-processing, caveats). */
	const char *(*note)(const fb_run *run);
	/* Optional (FB_ALGO_WEIGHTED): the current unthresholded d x d weights, row-major. */
	int (*weights)(const fb_run *run, double *w, fb_error *err);
	/* Optional: the accuracy when it is not that of result() (sep: the clients' mean). */
	int (*score)(const fb_run *run, fb_score *s, fb_error *err);
	/* Optional: the current estimate as a PAG, for algorithms that learn one (caller
	 * frees); result() then gives it as a plain graph. */
	fb_pag *(*pag)(const fb_run *run, fb_error *err);
	/* Optional: client k's own estimate, for algorithms that keep one per client. */
	fb_graph *(*client_result)(const fb_run *run, size_t k, fb_error *err);
	/* Optional (with server_figure): the server's figure about client k after a round. */
	double (*server_client)(const fb_run *run, size_t k);
	/* Optional: make result() threshold the weights it keeps at t from now on (for
	 * algorithms with a "threshold" parameter that acts only on their result). */
	void (*rethreshold)(fb_run *run, double t);
	/* Optional (FB_ALGO_CIRCUIT): the run's circuit over the dataset's variables (owned by
	 * the run, valid until its next step), or NULL with the reason (not learned yet, or one
	 * circuit per client). */
	const fb_circuit *(*circuit)(const fb_run *run, fb_error *err);
	/* Optional (FB_ALGO_CIRCUIT): the figures of the run's circuit or circuits. */
	int (*circuit_report)(const fb_run *run, fb_circuit_report *rep, fb_error *err);
	/* Optional: write message m (sent in direction dir in a round of run) readably into out
	 * when it is small enough to read (values, vote lists, sets with variable names); write
	 * nothing when it is not.  The trace keeps the messages; this reads them. */
	void (*message)(const fb_run *run, enum fb_dir dir, const fb_msg *m, fb_buf *out);
	/* The learner's options, when it has parameters (NULL for combinators). */
	const fb_algo_options *options;
	/* The shell's detail view of its runs (FB_DETAIL_FIGURES unless set). */
	enum fb_algo_detail detail;
} fb_algo;

/* One run of an algorithm. */
struct fb_run {
	const fb_algo *algo;       /* what runs (for A:B combinations, the combinator) */
	const fb_algo *inner;      /* the local learner of a combinator, or NULL */
	char *name;                /* "notears-admm", "voting:notears" (owned) */
	fb_params params;          /* the algorithm's parameters (owned; a combinator's merged) */
	const fb_dataset *data;    /* the pooled training rows: the dataset given, or when it
	                              holds out rows, train_data */
	const fb_partition *part;  /* the split as learners see it (each client's training rows
	                              only), or NULL */
	const fb_dataset *whole;   /* the dataset given, held-out rows included (not owned) */
	const fb_partition *whole_part; /* the split given, held-out rows included, or NULL
	                                   (not owned) */
	fb_dataset *train_data;    /* whole's training rows when it holds some out (owned) */
	fb_partition *train_part;  /* whole_part with training rows only, when the dataset
	                              holds some out (owned) */
	const fb_graph *truth;     /* the truth, or NULL (not owned) */
	fb_federation *fed;        /* for federated algorithms and combinators (owned) */
	fb_fed_options fedopt;     /* threads, share, seed of the federation */
	void *state;               /* the algorithm's own (owned through destroy) */
	const char *const *figures; /* names of the trace's figures (the algorithm's or learner's) */
	fb_trace trace;            /* one record per round */
	double seconds;            /* total wall time of the steps */
	fb_buf say;                /* the sentence the current step writes (fb_run_say) */
	fb_graph *truth_cpdag;     /* the truth's CPDAG, made at the first score (owned) */
	fb_fit_memo *memo;         /* combinators: the local fits their clients reuse and add
	                              to, or NULL to learn every one afresh (not owned) */
	fb_knowledge *knowledge;   /* background knowledge over data's variables, empty when
	                              none was given (owned) */
};

/* Every algorithm, NULL-terminated. */
extern const fb_algo *const fb_algo_table[];

/* The local-learner combinators (all:, sep:, voting:, avg:, best:). */
extern const fb_algo fb_algo_all, fb_algo_sep, fb_algo_voting, fb_algo_avg, fb_algo_best;
/* The learners. */
extern const fb_algo fb_algo_notears, fb_algo_notears_admm, fb_algo_pc, fb_algo_ges,
	fb_algo_notears_mlp, fb_algo_notears_mlp_admm;
extern const fb_algo fb_algo_circuit;
/* A run of circuit over data holding c (taken over, freed on failure) as if it had learned
 * it: its next round evaluates c on data's parts.  NULL with the reason when c is over
 * another number of variables. */
fb_run *fb_circuit_run_from(fb_circuit *c, const fb_dataset *data, fb_error *err);

/* Find "name" or "combinator:name"; NULL with a sentence listing what exists. */
int fb_algo_lookup(const char *name, const fb_algo **algo, const fb_algo **inner,
                   fb_error *err);
/* The parameter table of name (for A:B, the combinator's and the learner's together);
 * static storage, valid for the program's life. */
const fb_param_def *fb_algo_params(const fb_algo *algo, const fb_algo *inner);

/* What a run starts from.  A field left unset (zero, NULL) means its default; set the
 * fields by name: fb_run_spec spec = { .algo = "pc", .data = ds, .truth = t }. */
typedef struct fb_run_spec {
	const char *algo;              /* "notears-admm" or "combinator:learner" (required) */
	const fb_params *params;       /* its parameters, or NULL: the defaults */
	const fb_fed_options *fedopt;  /* threads, share, seed of the federation, or NULL: those
	                                  of fb_fed_options_init */
	const fb_dataset *data;        /* the rows (required) */
	const fb_partition *part;      /* the split of data, required for an algorithm that
	                                  takes a split (fb_algo.accepts), or NULL */
	const fb_graph *truth;         /* the truth to score against, or NULL */
	const fb_knowledge *knowledge; /* background knowledge over data's variables, or NULL:
	                                  none (copied by the run; fb_run_knowledge) */
} fb_run_spec;

/* The run's background knowledge (never NULL: empty when the spec had none). */
const fb_knowledge *fb_run_knowledge(const fb_run *run);

/* Start a run as spec says.  The data, split and truth must outlive the run.  NULL with
 * the reason (no algorithm of that name, a kind of data or split the algorithm does not
 * take, a bad parameter). */
fb_run *fb_run_alloc(const fb_run_spec *spec, fb_error *err);
/* Free a run (NULL is fine). */
void fb_run_free(fb_run *run);
/* One round; appends a trace record (with each client's participation and own figure when
 * the round went through the federation).  On FB_ERR no record is added; the run may go on. */
int fb_run_step(fb_run *run, fb_error *err);
/* Score the run against truth (not owned, must outlive the run; NULL: none) from now on:
 * the last record is scored again from the current estimate, and the earlier records, whose
 * estimates are not kept, lose their score.  The estimate itself does not change (best:
 * keeps the client graph it chose by the truth it had). */
void fb_run_set_truth(fb_run *run, const fb_graph *truth);
/* Set the run's threshold parameter to value (a number as typed) and make its result from
 * the weights it keeps at that threshold, without stepping again; the last record is scored
 * again.  FB_ERR with the reason when its algorithm has no such threshold or value is out of
 * range (the run unchanged). */
int fb_run_set_threshold(fb_run *run, const char *value, fb_error *err);
/* Whether the run has finished. */
bool fb_run_done(const fb_run *run);
/* Rounds done. */
size_t fb_run_rounds(const fb_run *run);
/* The last record, or NULL before the first round. */
const fb_trace_rec *fb_run_last(const fb_run *run);
/* The current estimate (caller frees). */
fb_graph *fb_run_result(const fb_run *run, fb_error *err);
/* Client k's own estimate (k from 0) for a run that keeps one per client (sep:, and the
 * combinators that combine them); NULL with the reason, also for a run that keeps none. */
fb_graph *fb_run_client_result(const fb_run *run, size_t k, fb_error *err);
/* Accuracy of the current estimate against the truth; FB_ERR when there is no truth. */
int fb_run_score(const fb_run *run, fb_score *s, fb_error *err);
/* The note of the run's algorithm, or "". */
const char *fb_run_note(const fb_run *run);
/* Whether the run's algorithm gives weights (fb_run_weights may still have none yet). */
bool fb_run_has_weights(const fb_run *run);
/* The run's current unthresholded d x d weights, row-major, into w (d*d); FB_ERR with the
 * reason when its algorithm gives none or has none yet. */
int fb_run_weights(const fb_run *run, double *w, fb_error *err);
/* Total bytes up and down so far. */
size_t fb_run_bytes(const fb_run *run, enum fb_dir dir);
/* Whether the run's algorithm learns a PAG (fb_run_pag gives it). */
bool fb_run_is_pag(const fb_run *run);
/* The run's current PAG (caller frees); NULL with one sentence when its algorithm learns
 * none. */
fb_pag *fb_run_pag(const fb_run *run, fb_error *err);
/* Whether the run's result is a circuit. */
bool fb_run_is_circuit(const fb_run *run);
/* The run's circuit (owned by the run, valid until its next step); NULL with one sentence
 * when the run is no circuit run, has not learned it yet, or keeps one per client. */
const fb_circuit *fb_run_circuit(const fb_run *run, fb_error *err);
/* The figures of a circuit run's circuit(s); FB_ERR with the reason. */
int fb_run_circuit_report(const fb_run *run, fb_circuit_report *rep, fb_error *err);
/* For an algorithm's step: set the round's plain sentence, what just happened in words a
 * newcomer follows ("clients voted on 23 edges; the server kept 17 ..."); fb_run_step puts
 * it in the round's record.  A later call replaces it. */
void fb_run_say(fb_run *run, const char *fmt, ...) FB_PRINTF(2, 3);
/* Whether figure f of the run is categorical (its algorithm names some of its values). */
bool fb_run_figure_categorical(const fb_run *run, size_t f);
/* The name of value v of figure f of the run, or NULL when it has none. */
const char *fb_run_figure_level(const fb_run *run, size_t f, double v);
/* For an algorithm's message text: the d x d matrix m (row: parent, column: child) as rows
 * labelled by the run's variable names, cut to 5 columns, a head row of the same names, and
 * numbers of at most 5 columns each, so that 12 variables fit in 78 columns; a note under it
 * when the diagonal (self-weights, no edge) is not zero at the precision shown. */
void fb_run_matrix_text(const fb_run *run, const double *m, size_t d, fb_buf *out);
/* Write the message client k sent (dir FB_UP) or received (FB_DOWN) in record rec readably
 * into out, as the algorithm writes it; FB_ERR with the reason when the record no longer
 * keeps its messages, the client sat the round out, or the message is too large to read. */
int fb_run_message_text(const fb_run *run, const fb_trace_rec *rec, enum fb_dir dir, size_t k,
                        fb_buf *out, fb_error *err);

#endif
