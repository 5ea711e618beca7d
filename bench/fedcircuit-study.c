/* fedcircuit-study: the federated-circuits paper's tabular tables on one CSV file whose
 * last column is a discrete class.
 *
 *   table1  test log-likelihood: centralised LearnSPN, then one-pass federated circuits over
 *           horizontal (5 clients), vertical (2) and hybrid (2) splits of the training rows,
 *           and hybrid followed by 5 and 10 distributed EM rounds on the server's weights
 *           over the rows both clients hold (the authors' code runs 5 after assembly);
 *   table5  classification (FC[PC]): accuracy and F1, centralised and over the paper's
 *           clients: horizontal 5 and 10, vertical 2 and 3, hybrid 2 and 3; then horizontal
 *           5 and 10 again with cluster_shared (each client splits its rows into K k-means
 *           clusters, one circuit each: what the authors' code does on horizontal splits,
 *           not what the paper describes);
 *   table2  vertical (2 clients): one-pass against one-pass followed by EM rounds.
 *
 * Per seed the rows are shuffled by the seed's stream and cut: table5 as the paper cuts
 * breast cancer (450 training rows of 570, the other 120 for test: the same shares of any
 * file, no validation rows), the others 70 / 15 / 15 % (train / valid / test; the
 * validation rows are not used); continuous columns are standardised with the training
 * rows' mean and population sd; the split of the training rows uses the same seed: in
 * table1 horizontal clients get contiguous blocks of the training rows ordered by class
 * (the paper's label shift: each client sees a subset of the classes), elsewhere shuffled
 * rows (the paper's classification runs split randomly); vertical and hybrid splits take
 * the variables in a random order of the seed (the paper splits the features randomly), so
 * that each client's block is a random set; hybrid clients hold their own block of
 * variables and share one (overlap=0: "at least two clients have at least one randomly
 * chosen feature in common"), and every one of them holds 0.3 of the rows beside its own
 * share of the others (split's default shared=0.3: the paper's hybrid clients overlap in
 * rows, though not fully).  With draw=replace the hybrid rows are drawn as the authors'
 * code draws them (split's draw=replace: 0.3 n rows drawn with replacement for every
 * client and n/K more for each, so 2 clients hold 0.8 n rows each, some repeated); with
 * draw=both each hybrid row is run both ways.  The class is predicted as the argmax over
 * its levels of the federated log p(class, x); F1 is that of the class's least frequent
 * level in the training rows.  Figures are mean +- standard error over the seeds.
 *
 * Usage: fedcircuit-study TABLE CSV [SEEDS [THRESHOLD MIN_INSTANCES [K [EM]]]] [draw=cut|
 * replace|both] [shared=S]; the defaults are 5 seeds, SPFlow's learn_mspn (0.3, 200), K = 2
 * clusters, 5 EM rounds, draw=cut and shared=0.3; a ninth argument "parametric" fits
 * Gaussian and categorical leaves instead of histograms.  The draw= and shared= words (the
 * hybrid rows' protocol and split's share of rows every client holds) may stand anywhere
 * after CSV. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/csv.h"
#include "fedbn/fedcircuit.h"

/* Table 5's training share: the paper cuts breast cancer's 570 rows into 450 and 120. */
#define TABLE5_TRAIN (450.0 / 570.0)

/* The rows of one seed: training dataset and test rows. */
typedef struct study_data {
	fb_dataset *train; /* the training rows (owned) */
	fb_dataset *by_class; /* the same rows ordered by class, stably (owned) */
	double *test;      /* nte x d test rows (owned) */
	size_t nte;        /* test rows */
	size_t target;     /* the class column */
	size_t positive;   /* the class level F1 is about */
} study_data;

/* Figures of one model on one seed. */
typedef struct study_fig {
	double ll, acc, f1; /* test log-likelihood, accuracy, F1 */
} study_fig;

/* Standardise the continuous columns of x (n x d) by the first ntr rows' mean and sd. */
static void standardise(const fb_dataset *ds, double *x, size_t n, size_t ntr)
{
	for (size_t j = 0; j < ds->d; j++) {
		double m = 0, v = 0;

		if (ds->vars[j].kind != FB_CONTINUOUS)
			continue;
		for (size_t i = 0; i < ntr; i++)
			m += x[i * ds->d + j] / (double)ntr;
		for (size_t i = 0; i < ntr; i++)
			v += pow(x[i * ds->d + j] - m, 2) / (double)ntr;
		for (size_t i = 0; i < n; i++)
			x[i * ds->d + j] = (x[i * ds->d + j] - m) / (v > 0 ? sqrt(v) : 1);
	}
}

/* The rows of ds ordered by the level of column t, stably, in a new dataset. */
static fb_dataset *by_class(const fb_dataset *ds, size_t t)
{
	size_t *rows = malloc(ds->n * sizeof *rows), m = 0;
	fb_dataset *out;

	for (size_t v = 0; v < ds->vars[t].nlevels; v++)
		for (size_t i = 0; i < ds->n; i++)
			if ((size_t)ds->x[i * ds->d + t] == v)
				rows[m++] = i;
	out = fb_dataset_subset(ds, rows, m, NULL, 0);
	free(rows);
	return out;
}

/* Shuffle, cut (a share paper5 of the rows for training, the others for test: else 70 %
 * and the last 15 %) and standardise the rows of ds for one seed. */
static void study_prepare(const fb_dataset *ds, uint64_t seed, int paper5, study_data *sd)
{
	size_t n = ds->n, *perm = malloc(n * sizeof *perm);
	size_t ntr = paper5 ? (size_t)floor(TABLE5_TRAIN * (double)n) : (size_t)(0.7 * (double)n);
	size_t cnt[64] = { 0 };
	gsl_rng *r = fb_rng_stream(seed, "study-split");
	fb_dataset *sh;

	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	fb_rng_shuffle(r, perm, n);
	sh = fb_dataset_subset(ds, perm, n, NULL, 0);
	standardise(sh, sh->x, n, ntr);
	sd->nte = paper5 ? n - ntr : (size_t)(0.15 * (double)n);
	for (size_t i = 0; i < n; i++)
		perm[i] = i;
	sd->train = fb_dataset_subset(sh, perm, ntr, NULL, 0);
	sd->test = malloc(sd->nte * ds->d * sizeof *sd->test);
	memcpy(sd->test, sh->x + (n - sd->nte) * ds->d, sd->nte * ds->d * sizeof *sd->test);
	sd->target = ds->d - 1;
	for (size_t i = 0; i < ntr; i++)
		cnt[(size_t)sh->x[i * ds->d + sd->target] % 64]++;
	sd->by_class = by_class(sd->train, sd->target);
	sd->positive = 0;
	for (size_t v = 1; v < ds->vars[sd->target].nlevels && v < 64; v++)
		if (cnt[v] < cnt[sd->positive])
			sd->positive = v;
	fb_dataset_free(sh);
	gsl_rng_free(r);
	free(perm);
}

/* sd with its variables in a random order of seed (the training rows, the test rows and the
 * class's index follow), so that even column blocks are random sets of variables. */
static void study_shuffle_columns(const study_data *sd, uint64_t seed, study_data *out)
{
	size_t d = sd->train->d, *perm = malloc(d * sizeof *perm);
	gsl_rng *r = fb_rng_stream(seed, "study-columns");

	for (size_t j = 0; j < d; j++)
		perm[j] = j;
	fb_rng_shuffle(r, perm, d);
	*out = *sd;
	out->by_class = NULL;
	out->train = fb_dataset_subset(sd->train, NULL, 0, perm, d);
	out->test = malloc(sd->nte * d * sizeof *out->test);
	for (size_t j = 0; j < d; j++) {
		for (size_t i = 0; i < sd->nte; i++)
			out->test[i * d + j] = sd->test[i * d + perm[j]];
		if (perm[j] == sd->target)
			out->target = j;
	}
	gsl_rng_free(r);
	free(perm);
}

/* A model's log-likelihood of n rows: a federated run's or a circuit's. */
typedef int (*loglik_fn)(const void *model, const double *x, size_t n, double *out);

/* Log-likelihood through a federated run. */
static int ll_fed(const void *m, const double *x, size_t n, double *out)
{
	return fb_fc_loglik(m, x, n, out, NULL, NULL);
}

/* Log-likelihood of a centralised circuit. */
static int ll_central(const void *m, const double *x, size_t n, double *out)
{
	return fb_circuit_logpdf(m, x, n, out, NULL);
}

/* Test log-likelihood, accuracy and F1 (of the positive class) of a model. */
static study_fig study_score(const void *model, loglik_fn ll, const study_data *sd,
                             size_t nlev)
{
	size_t n = sd->nte, d = sd->train->d;
	double *lp = malloc(n * sizeof *lp), *best = malloc(n * sizeof *best);
	double *x = malloc(n * d * sizeof *x);
	size_t *arg = calloc(n, sizeof *arg), *truth = calloc(n, sizeof *truth);
	size_t *cm = calloc(nlev * nlev, sizeof *cm);
	study_fig f = { 0, 0, 0 };

	ll(model, sd->test, n, lp);
	for (size_t i = 0; i < n; i++)
		f.ll += lp[i] / (double)n;
	for (size_t v = 0; v < nlev; v++) {
		memcpy(x, sd->test, n * d * sizeof *x);
		for (size_t i = 0; i < n; i++)
			x[i * d + sd->target] = (double)v;
		ll(model, x, n, lp);
		for (size_t i = 0; i < n; i++)
			if (v == 0 || lp[i] > best[i]) {
				best[i] = lp[i];
				arg[i] = v;
			}
	}
	for (size_t i = 0; i < n; i++)
		truth[i] = (size_t)sd->test[i * d + sd->target];
	fb_confusion_count(truth, arg, n, nlev, cm);
	f.acc = (double)fb_confusion_right(cm, nlev) / (double)n;
	f.f1 = fb_confusion_f1(cm, nlev, sd->positive);
	free(lp);
	free(best);
	free(x);
	free(arg);
	free(truth);
	free(cm);
	return f;
}

/* The settings of a study. */
typedef struct study_opts {
	fb_learnspn_options learn; /* threshold and min_instances_slice */
	size_t clusters;           /* K */
	size_t em;                 /* EM rounds of table2 */
	int label_shift;           /* horizontal clients get rows ordered by class (table1) */
	int cluster_shared;        /* fb_fc_options' cluster_shared */
	int draw_cut, draw_replace; /* run hybrid rows cut, drawn with replacement, or both */
	double shared;             /* hybrid: split's shared= */
} study_opts;

/* A federated run over kind with K clients (hybrid rows drawn as draw says) and em EM
 * rounds, scored. */
static study_fig study_fed(const study_data *sd, enum fb_split_kind kind, size_t k,
                           enum fb_split_draw draw, size_t em, uint64_t seed,
                           const study_opts *so)
{
	fb_split_options spo;
	fb_partition *p;
	fb_fed_options fo;
	fb_federation *fed;
	fb_fc_options o;
	fb_fc *fc;
	fb_error err;
	study_fig f;

	fb_split_options_init(&spo);
	spo.seed = seed;
	spo.shuffle = kind != FB_SPLIT_HORIZONTAL || !so->label_shift;
	spo.overlap = 0;
	spo.draw = draw;
	spo.shared = so->shared;
	p = fb_split(kind == FB_SPLIT_HORIZONTAL && so->label_shift ? sd->by_class : sd->train,
	             kind, k, &spo, &err);
	fb_fc_options_init(&o);
	o.learn = so->learn;
	o.clusters = so->clusters;
	o.em_iters = em;
	o.cluster_shared = so->cluster_shared;
	fb_fed_options_init(&fo);
	fed = p == NULL ? NULL : fb_fed_alloc(p, &fo, &err);
	fc = fed == NULL ? NULL : fb_fc_alloc(p, &o, &err);
	while (fc != NULL && !fb_fc_done(fc))
		if (fb_fc_step(fc, fed, &err) != FB_OK)
			break;
	if (fc == NULL || !fb_fc_done(fc)) {
		fprintf(stderr, "fedcircuit-study: %s\n", err.msg);
		exit(1);
	}
	f = study_score(fc, ll_fed, sd, sd->train->vars[sd->target].nlevels);
	fb_fc_free(fc);
	fb_fed_free(fed);
	fb_partition_free(p);
	return f;
}

/* The centralised learner on the pooled training rows, scored. */
static study_fig study_central(const study_data *sd, const study_opts *so)
{
	const fb_dataset *tr = sd->train;
	size_t *lv = malloc(tr->d * sizeof *lv);
	fb_circuit *c;
	fb_error err;
	study_fig f;

	for (size_t j = 0; j < tr->d; j++)
		lv[j] = tr->vars[j].nlevels;
	if (fb_learnspn(tr->x, tr->n, tr->d, lv, &so->learn, 0, &c, &err) != FB_OK) {
		fprintf(stderr, "fedcircuit-study: %s\n", err.msg);
		exit(1);
	}
	f = study_score(c, ll_central, sd, tr->vars[sd->target].nlevels);
	fb_circuit_free(c);
	free(lv);
	return f;
}

/* Mean and standard error of n values with stride. */
static void mean_se(const double *v, size_t n, size_t stride, double *m, double *se)
{
	double s = 0, q = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i * stride];
	*m = s / (double)n;
	for (size_t i = 0; i < n; i++)
		q += pow(v[i * stride] - *m, 2);
	*se = n > 1 ? sqrt(q / (double)(n - 1) / (double)n) : 0;
}

/* One table row: label and the figures of each seed (3 per seed: ll, acc, f1). */
static void print_row(const char *table, const char *label, const double *fig, size_t seeds)
{
	double m[3], se[3];

	for (int i = 0; i < 3; i++)
		mean_se(fig + i, seeds, 3, &m[i], &se[i]);
	if (strcmp(table, "table5") == 0)
		printf("| %-24s | %.3f ± %.3f | %.3f ± %.3f |\n", label, m[1], se[1], m[2], se[2]);
	else
		printf("| %-24s | %8.2f ± %.2f |\n", label, m[0], se[0]);
}

/* One row of a table: a model, or a split with its clients. */
typedef struct study_setting {
	const char *label;       /* the row's name */
	int central;             /* the centralised learner, not federated */
	enum fb_split_kind kind; /* else the split */
	size_t k;                /* and its clients */
	int em;                  /* EM rounds: 0 none, -1 the study's EM (table2), else so many */
	int cluster_shared;      /* clients cluster their rows of shared subspaces too */
	enum fb_split_draw draw; /* hybrid rows cut or drawn with replacement */
} study_setting;

/* Table 1: the paper's clients per setting. */
static const study_setting table1_rows[] = {
	{ "centralised (not fed.)", 1, 0, 0, 0, 0, FB_DRAW_CUT },
	{ "horizontal, 5 clients", 0, FB_SPLIT_HORIZONTAL, 5, 0, 0, FB_DRAW_CUT },
	{ "vertical, 2 clients", 0, FB_SPLIT_VERTICAL, 2, 0, 0, FB_DRAW_CUT },
	{ "hybrid, 2 clients", 0, FB_SPLIT_HYBRID, 2, 0, 0, FB_DRAW_CUT },
	{ "hybrid 2 + EM 5", 0, FB_SPLIT_HYBRID, 2, 5, 0, FB_DRAW_CUT },
	{ "hybrid 2 + EM 10", 0, FB_SPLIT_HYBRID, 2, 10, 0, FB_DRAW_CUT },
	{ "hybrid 2, draw=replace", 0, FB_SPLIT_HYBRID, 2, 0, 0, FB_DRAW_REPLACE },
	{ "hybrid 2, replace + EM 5", 0, FB_SPLIT_HYBRID, 2, 5, 0, FB_DRAW_REPLACE },
	{ NULL, 0, 0, 0, 0, 0, 0 },
};

/* Table 5: FC[PC] rows of the paper (5 and 10, 2 and 3, 2 and 3 clients). */
static const study_setting table5_rows[] = {
	{ "centralised (not fed.)", 1, 0, 0, 0, 0, FB_DRAW_CUT },
	{ "horizontal, 5 clients", 0, FB_SPLIT_HORIZONTAL, 5, 0, 0, FB_DRAW_CUT },
	{ "horizontal, 10 clients", 0, FB_SPLIT_HORIZONTAL, 10, 0, 0, FB_DRAW_CUT },
	{ "vertical, 2 clients", 0, FB_SPLIT_VERTICAL, 2, 0, 0, FB_DRAW_CUT },
	{ "vertical, 3 clients", 0, FB_SPLIT_VERTICAL, 3, 0, 0, FB_DRAW_CUT },
	{ "hybrid, 2 clients", 0, FB_SPLIT_HYBRID, 2, 0, 0, FB_DRAW_CUT },
	{ "hybrid, 3 clients", 0, FB_SPLIT_HYBRID, 3, 0, 0, FB_DRAW_CUT },
	{ "hybrid 2, draw=replace", 0, FB_SPLIT_HYBRID, 2, 0, 0, FB_DRAW_REPLACE },
	{ "hybrid 3, draw=replace", 0, FB_SPLIT_HYBRID, 3, 0, 0, FB_DRAW_REPLACE },
	{ "horizontal 5, clustered", 0, FB_SPLIT_HORIZONTAL, 5, 0, 1, FB_DRAW_CUT },
	{ "horizontal 10, clustered", 0, FB_SPLIT_HORIZONTAL, 10, 0, 1, FB_DRAW_CUT },
	{ NULL, 0, 0, 0, 0, 0, 0 },
};

/* Table 2: vertical, 2 clients, without and with EM. */
static const study_setting table2_rows[] = {
	{ "one-pass", 0, FB_SPLIT_VERTICAL, 2, 0, 0, FB_DRAW_CUT },
	{ "one-pass + EM", 0, FB_SPLIT_VERTICAL, 2, -1, 0, FB_DRAW_CUT },
	{ NULL, 0, 0, 0, 0, 0, 0 },
};

/* The figures of one setting on one seed's data (sd, and sdp with shuffled columns). */
static study_fig study_one(const study_setting *st, const study_data *sd,
                           const study_data *sdp, uint64_t seed, const study_opts *so)
{
	if (st->central)
		return study_central(sd, so);
	study_opts o = *so;

	o.cluster_shared = st->cluster_shared;
	return study_fed(st->kind == FB_SPLIT_HORIZONTAL ? sd : sdp, st->kind, st->k, st->draw,
	                 st->em < 0 ? so->em : (size_t)st->em, seed, &o);
}

/* Whether a table row runs under the chosen draw= (hybrid rows are cut, drawn or both). */
static int study_wanted(const study_setting *st, const study_opts *so)
{
	if (st->central || st->kind != FB_SPLIT_HYBRID)
		return 1;
	return st->draw == FB_DRAW_REPLACE ? so->draw_replace : so->draw_cut;
}

/* Run the settings of a table over the seeds and print its rows. */
static void study_table(const char *table, const fb_dataset *ds, size_t seeds,
                        const study_opts *so)
{
	const study_setting *all = strcmp(table, "table2") == 0 ? table2_rows
	                           : strcmp(table, "table5") == 0 ? table5_rows : table1_rows;
	study_setting rows[16];
	size_t nset = 0;
	double *fig;

	for (size_t t = 0; all[t].label != NULL; t++)
		if (study_wanted(&all[t], so))
			rows[nset++] = all[t];
	fig = calloc(nset * seeds * 3, sizeof *fig);
	for (size_t s = 0; s < seeds; s++) {
		study_data sd, sdp;

		study_prepare(ds, s + 1, strcmp(table, "table5") == 0, &sd);
		study_shuffle_columns(&sd, s + 1, &sdp);
		for (size_t t = 0; t < nset; t++) {
			study_fig f = study_one(&rows[t], &sd, &sdp, s + 1, so);
			double *o = fig + (t * seeds + s) * 3;

			o[0] = f.ll;
			o[1] = f.acc;
			o[2] = f.f1;
		}
		fb_dataset_free(sd.train);
		fb_dataset_free(sd.by_class);
		fb_dataset_free(sdp.train);
		free(sd.test);
		free(sdp.test);
	}
	for (size_t t = 0; t < nset; t++)
		print_row(table, rows[t].label, fig + t * seeds * 3, seeds);
	free(fig);
}

/* Read one "draw=cut|replace|both" or "shared=S" word into so: 1 if it is one, 0 if it is
 * neither, -1 on a bad value. */
static int study_word(const char *w, study_opts *so)
{
	char *end;

	if (strncmp(w, "shared=", 7) == 0) {
		so->shared = strtod(w + 7, &end);
		return *end == '\0' && end != w + 7 ? 1 : -1;
	}
	if (strncmp(w, "draw=", 5) != 0)
		return 0;
	w += 5;
	if (strcmp(w, "cut") != 0 && strcmp(w, "replace") != 0 && strcmp(w, "both") != 0)
		return -1;
	so->draw_cut = strcmp(w, "replace") != 0;
	so->draw_replace = strcmp(w, "cut") != 0;
	return 1;
}

/* Take the draw= and shared= words out of argv (after CSV) into so; -1 on a bad value. */
static int study_take_words(int *argc, char **argv, study_opts *so)
{
	so->draw_cut = 1;
	so->draw_replace = 0;
	so->shared = FB_SPLIT_SHARED;
	for (int i = 3; i < *argc; i++) {
		int got = study_word(argv[i], so);

		if (got < 0)
			return -1;
		if (got == 0)
			continue;
		memmove(argv + i, argv + i + 1, (size_t)(*argc - i) * sizeof *argv);
		(*argc)--;
		i--;
	}
	return 0;
}

int main(int argc, char **argv)
{
	fb_error err;
	fb_dataset *ds;
	study_opts so;
	size_t seeds;

	if (argc < 3 || study_take_words(&argc, argv, &so) != 0) {
		fprintf(stderr, "usage: fedcircuit-study table1|table2|table5 CSV [SEEDS "
		                "[THRESHOLD MIN_INSTANCES [K [EM]]]] [draw=cut|replace|both] "
		                "[shared=S]\n");
		return 2;
	}
	ds = fb_csv_read(argv[2], NULL, NULL, &err);
	if (ds == NULL || ds->vars[ds->d - 1].kind != FB_DISCRETE) {
		fprintf(stderr, "fedcircuit-study: %s\n", ds == NULL ? err.msg
		                                       : "the last column must be a discrete class");
		return 1;
	}
	fb_blas_single_thread();
	seeds = argc > 3 ? strtoul(argv[3], NULL, 10) : 5;
	fb_learnspn_options_init(&so.learn);
	if (argc > 5) {
		so.learn.threshold = atof(argv[4]);
		so.learn.min_instances_slice = strtoul(argv[5], NULL, 10);
	}
	so.clusters = argc > 6 ? strtoul(argv[6], NULL, 10) : 2;
	so.em = argc > 7 ? strtoul(argv[7], NULL, 10) : 5;
	if (argc > 8 && strcmp(argv[8], "parametric") == 0)
		so.learn.leaves = FB_LEARN_PARAMETRIC;
	so.label_shift = strcmp(argv[1], "table1") == 0;
	so.cluster_shared = 0;
	printf("%s on %s: %zu rows x %zu columns, %zu seeds, threshold %g, min_instances_slice "
	       "%zu, K %zu, hybrid rows %s, shared=%g\n", argv[1], argv[2], ds->n, ds->d, seeds,
	       so.learn.threshold, so.learn.min_instances_slice, so.clusters,
	       so.draw_replace ? so.draw_cut ? "cut and drawn with replacement"
	                                     : "drawn with replacement" : "cut", so.shared);
	study_table(argv[1], ds, seeds, &so);
	fb_dataset_free(ds);
	return 0;
}
