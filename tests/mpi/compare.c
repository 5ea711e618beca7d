/* The checks of a study between processes, shared by the programs that run one over a link
 * (test-mpi over MPI, test-link over socket pairs): the same data cut into the same blocks in
 * every process, runs over the link against the same runs in-process (rounds, figures,
 * results and ledgers, bit for bit), and a client that dies. */
#include "config.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "fedbn/csv.h"
#include "fedbn/serve.h"
#include "fedbn/sim.h"
#include "fedbn/wire.h"

/* Five variables, five edges, n rows, seed 3, the first discrete of them cut into 3
 * equal-frequency levels, and the truth; the process ends when it cannot. */
static fb_dataset *sim_data(size_t n, size_t discrete, fb_graph **truth)
{
	fb_sim_options o;
	fb_dataset *ds;
	fb_error err;

	fb_sim_options_init(&o);
	o.d = 5;
	o.edges = 5;
	o.n = n;
	o.seed = 3;
	o.discrete = discrete;
	o.levels = 3;
	if (fb_sim_generate(&o, &ds, truth, &err) != FB_OK) {
		fprintf(stderr, "test data: %s\n", err.msg);
		exit(1);
	}
	return ds;
}

/* The shared data: d variables, n rows, seed 3, and its truth. */
fb_dataset *make_data(fb_graph **truth)
{
	return sim_data(240, 0, truth);
}

/* The shared data cut into levels: 600 rows, every variable cut into 3 equal-frequency
 * levels (the discrete learners' data), and its truth. */
fb_dataset *make_discrete(fb_graph **truth)
{
	return sim_data(600, 5, truth);
}

/* The K blocks of ds: contiguous rows, the vertical split's columns, or the hybrid split's
 * rows and columns. */
fb_partition *blocks(const fb_dataset *ds, size_t k, enum fb_split_kind kind)
{
	fb_split_options o;
	fb_error err;

	fb_split_options_init(&o);
	o.shuffle = 0;
	return fb_split(ds, kind, k, &o, &err);
}

/* Step run to its end; FB_ERR with the reason. */
int finish(fb_run *run, fb_error *err)
{
	while (!fb_run_done(run))
		if (fb_run_step(run, err) != FB_OK)
			return FB_ERR;
	return FB_OK;
}

/* Whether two graphs have the same marks and the same weight bits. */
static bool same_graph(const fb_graph *a, const fb_graph *b)
{
	if (a == NULL || b == NULL || a->d != b->d || a->weighted != b->weighted)
		return a == b;
	for (size_t i = 0; i < a->d; i++)
		for (size_t j = 0; j < a->d; j++)
			if (fb_graph_edge(a, i, j) != fb_graph_edge(b, i, j) ||
			    (a->weighted && memcmp(&a->w[i * a->d + j], &b->w[i * a->d + j],
			                           sizeof(double)) != 0))
				return false;
	return true;
}

/* Whether the traces agree bit for bit (figures, participation, client figures). */
static bool same_trace(const fb_run *a, const fb_run *b)
{
	if (a->trace.n != b->trace.n)
		return false;
	for (size_t r = 0; r < a->trace.n; r++) {
		const fb_trace_rec *x = &a->trace.r[r], *y = &b->trace.r[r];

		if (memcmp(x->fig, y->fig, a->trace.nfig * sizeof *x->fig) != 0 ||
		    x->nclients != y->nclients ||
		    (x->nclients > 0 && memcmp(x->took, y->took, x->nclients * sizeof *x->took)) ||
		    (x->client_fig != NULL && memcmp(x->client_fig, y->client_fig,
		                                     x->nclients * sizeof *x->client_fig) != 0))
			return false;
	}
	return true;
}

/* How many control numbers the broadcasts of an algorithm carry: the round for
 * notears-mlp-admm; alpha, rho and the step count for FedDAG; the tests, whether the level
 * counts come first and the round for fedc2sl; none for the others. */
static size_t control_down(const char *name)
{
	if (strcmp(name, "notears-mlp-admm") == 0)
		return 1;
	if (strcmp(name, "fedc2sl") == 0)
		return 3;
	if (strcmp(name, "gs-feddag") == 0 || strcmp(name, "as-feddag") == 0 ||
	    strcmp(name, "as-feddag-linear") == 0)
		return 3;
	return 0;
}

/* Whether the ledger's first entries are the knowledge's words (compare_knowledge), once per
 * client, in round 0 going down (none without knowledge). */
static bool knowledge_counted(const fb_run *a)
{
	const fb_ledger *x = fb_fed_ledger(a->fed);
	char **w;
	size_t nw = fb_fed_knowledge_words(compare_knowledge, &w), bytes, k = a->part->k;
	bool ok = x->n >= k;

	bytes = fb_fed_words_bytes(w, nw);
	fb_names_free(w, nw);
	for (size_t c = 0; c < k && ok && nw > 0; c++)
		ok = x->e[c].round == 0 && x->e[c].dir == FB_DOWN && x->e[c].client == c &&
		     x->e[c].bytes == bytes;
	return ok && (nw > 0 || x->e[0].round > 0);
}

/* Whether every MPI ledger entry is the in-process one plus the frame header and 8 bytes per
 * control number of a broadcast, and the MPI ledger's only other entries are bare headers
 * sent up by clients that ran the round undrawn (*extra counts them). */
static bool same_ledger(const fb_run *a, const fb_run *b, size_t *extra)
{
	const fb_ledger *x = fb_fed_ledger(a->fed), *y = fb_fed_ledger(b->fed);
	size_t i = 0, j = 0, nc = control_down(a->name);

	*extra = 0;
	if (x->n == 0)
		return false;
	for (; j < y->n; j++) {
		const fb_ledger_entry *u = i < x->n ? &x->e[i] : NULL, *v = &y->e[j];
		/* round 0: the knowledge, words inside the opening's frame */
		size_t over = v->round == 0 ? 0 : FB_WIRE_HEADER + (v->dir == FB_DOWN ? 8 * nc : 0);

		if (u != NULL && u->round == v->round && u->dir == v->dir &&
		    u->client == v->client) {
			if (v->bytes != u->bytes + over)
				return false;
			i++;
		} else if (v->dir == FB_UP && v->bytes == FB_WIRE_HEADER &&
		           !a->trace.r[v->round - 1].took[v->client]) {
			++*extra;
		} else {
			return false;
		}
	}
	return i == x->n;
}

/* Client-rounds in which a client ran its half without being drawn (FedDAG: every client
 * computes every round; the others: none). */
static size_t undrawn(const fb_run *a)
{
	size_t n = 0;

	if (strstr(a->name, "feddag") == NULL)
		return 0;
	for (size_t r = 0; r < a->trace.n; r++)
		for (size_t c = 0; c < a->trace.r[r].nclients; c++)
			n += !a->trace.r[r].took[c];
	return n;
}

/* A circuit's text (every weight and parameter to 17 digits: the same text, the same bits);
 * caller frees; NULL when c is. */
static char *circuit_text(const fb_circuit *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	fb_error err;

	if (c == NULL || (fp = open_memstream(&buf, &len)) == NULL)
		return NULL;
	fb_circuit_write(c, fp, &err);
	fclose(fp);
	return buf;
}

/* Whether two runs of a circuit learner assembled the same circuit, bit for bit. */
static bool same_circuit(const fb_run *a, const fb_run *b)
{
	fb_error err;
	char *x = circuit_text(a->algo->circuit(a, &err)), *y = circuit_text(b->algo->circuit(b,
	                                                                                &err));
	bool ok = x != NULL && y != NULL && strcmp(x, y) == 0;

	free(x);
	free(y);
	return ok;
}

/* Whether a circuit run's log-likelihoods over MPI are the in-process ones, bit for bit, with
 * training rows; over a hybrid federation (no site holds whole rows or every row), that
 * over MPI none is claimed. */
static bool same_loglik(const fb_run *a, const fb_run *b)
{
	fb_circuit_report x, y;
	fb_error err;

	if (fb_run_circuit_report(a, &x, &err) != FB_OK ||
	    fb_run_circuit_report(b, &y, &err) != FB_OK)
		return false;
	if (b->part->kind == FB_SPLIT_HYBRID)
		return y.ll[FB_PART_TRAIN].n + y.ll[FB_PART_VALID].n + y.ll[FB_PART_TEST].n == 0;
	return x.ll[FB_PART_TRAIN].n > 0 && memcmp(x.ll, y.ll, sizeof x.ll) == 0;
}

/* Whether the results and each client's result agree. */
static bool same_results(const fb_run *a, const fb_run *b)
{
	fb_error err;
	fb_graph *x, *y;
	bool ok;

	if (a->algo->flags & FB_ALGO_CIRCUIT)
		return same_circuit(a, b);
	x = fb_run_result(a, &err);
	y = fb_run_result(b, &err);
	ok = same_graph(x, y);

	fb_graph_free(x);
	fb_graph_free(y);
	for (size_t k = 0; ok && a->algo->client_result != NULL && k < a->part->k; k++) {
		x = a->algo->client_result(a, k, &err);
		y = b->algo->client_result(b, k, &err);
		ok = same_graph(x, y);
		fb_graph_free(x);
		fb_graph_free(y);
	}
	return ok;
}

/* Whether name's algorithm says it can run with its clients in other processes. */
static bool remote_ready(const char *name)
{
	const fb_algo *a, *inner;
	fb_error err;

	return fb_algo_lookup(name, &a, &inner, &err) == FB_OK && (a->flags & FB_ALGO_REMOTE) &&
	       (inner == NULL || !(inner->flags & FB_ALGO_CIRCUIT));
}

/* EM over a hybrid federation (sites holding different rows) is refused with a sentence. */
void refused_em(const fb_dataset *schema, const fb_partition *remote)
{
	fb_error err = { { 0 } };
	fb_run_spec spec = { .algo = "fedcircuit-em", .data = schema, .part = remote };
	fb_run *b = fb_run_alloc(&spec, &err);

	check(b == NULL && strstr(err.msg, "EM needs every client to hold the same rows") != NULL,
	      "refused over a hybrid federation with a sentence", "fedcircuit-em");
	fb_run_free(b);
}

/* An algorithm that is not MPI-ready is refused over MPI with a sentence. */
static void refused(const char *name, const fb_dataset *schema, const fb_partition *remote,
                    const fb_graph *truth)
{
	fb_error err = { { 0 } };
	fb_run_spec spec = { .algo = name, .data = schema, .part = remote, .truth = truth };
	fb_run *b = fb_run_alloc(&spec, &err);

	check(b == NULL && strstr(err.msg, "cannot run with its clients in other processes") !=
	      NULL, "refused between processes with a sentence (not ready)", name);
	fb_run_free(b);
}

/* Client-rounds in which a client sat out or its reply was lost (the "dropped" figure). */
static size_t sat_out(const fb_run *a)
{
	size_t n = 0, drop = a->trace.nfig;

	for (size_t f = 0; f < a->trace.nfig; f++)
		if (strcmp(a->figures[f], "dropped") == 0)
			drop = f;
	for (size_t r = 0; r < a->trace.n; r++) {
		for (size_t c = 0; c < a->trace.r[r].nclients; c++)
			n += !a->trace.r[r].took[c];
		if (drop < a->trace.nfig)
			n += (size_t)a->trace.r[r].fig[drop];
	}
	return n;
}

/* Small settings of the slow learners (words "key=value"; share in *share), or NULL. */
const char *small_words(const char *name, int variant, double *share)
{
	static const struct {
		const char *name;
		const char *words[2]; /* every client; some drawn or dropped */
		double share[2];
	} small[] = {
		{ "notears-mlp-admm", { "max_rounds=4 hidden=3", "max_rounds=5 hidden=3" },
		  { 1.0, 0.5 } },
		{ "gs-feddag", { "it_in=12 it_fl=6 it_max=2 hidden=4 layers=2",
		                 "it_in=12 it_fl=4 it_max=2 hidden=4 layers=2 r=2 dropout=0.3" },
		  { 1.0, 1.0 } },
		{ "as-feddag", { "it_in=12 it_fl=6 it_max=2 hidden=4 layers=2",
		                 "it_in=12 it_fl=4 it_max=2 hidden=4 layers=2 r=3 dropout=0.3" },
		  { 1.0, 1.0 } },
		{ "as-feddag-linear", { "it_in=30 it_fl=10 it_max=3",
		                        "it_in=30 it_fl=10 it_max=3 r=2 dropout=0.4" },
		  { 1.0, 1.0 } },
		{ "fedc2sl", { "depth=2", "depth=2 dropout=0.3" }, { 1.0, 1.0 } },
	};

	*share = 1.0;
	for (size_t i = 0; i < sizeof small / sizeof *small; i++)
		if (strcmp(small[i].name, name) == 0) {
			*share = small[i].share[variant];
			return small[i].words[variant];
		}
	return NULL;
}

/* The parameters of name: defaults, then the words (may be NULL). */
void params_of(const char *name, const char *words, fb_params *p)
{
	const fb_algo *a, *inner;
	fb_error err;
	char *copy, *save = NULL;

	fb_algo_lookup(name, &a, &inner, &err);
	fb_params_init(p, fb_algo_params(a, inner), &err);
	if (words == NULL)
		return;
	copy = fb_xstrdup(words);
	for (char *w = strtok_r(copy, " ", &save); w != NULL; w = strtok_r(NULL, " ", &save))
		if (fb_params_set_word(p, w, name, &err) != FB_OK)
			printf("FAIL %s: %s\n", name, err.msg);
	free(copy);
}

/* Run name in-process and over the link and compare them (one that is not ready for clients
 * in other processes must be refused); nothing when in-process refuses it.  variant 1 draws or drops clients. */
void compare(const char *name, int variant, const fb_dataset *ds, const fb_partition *local,
             const fb_dataset *schema, const fb_partition *remote, const fb_graph *truth)
{
	fb_error err;
	fb_run *a, *b;
	fb_params p;
	fb_fed_options fo;
	fb_run_spec spec = { .algo = name, .params = &p, .fedopt = &fo, .data = ds,
	                     .part = local, .truth = truth, .knowledge = compare_knowledge };
	size_t extra = 0;
	char label[96];

	fb_fed_options_init(&fo);
	params_of(name, small_words(name, variant, &fo.share), &p);
	snprintf(label, sizeof label, "%s%s", name, variant ? " (some clients drawn or lost)" : "");
	a = fb_run_alloc(&spec, &err);
	if (a == NULL) {
		fb_params_release(&p);
		return; /* not a combination fedbn runs (avg: over an unweighted learner) */
	}
	if (!remote_ready(name)) {
		refused(name, schema, remote, truth);
		fb_params_release(&p);
		fb_run_free(a);
		return;
	}
	if (finish(a, &err) != FB_OK) {
		check(false, err.msg, label);
		fb_params_release(&p);
		fb_run_free(a);
		return;
	}
	spec.data = schema;
	spec.part = remote;
	b = fb_run_alloc(&spec, &err);
	if (b == NULL || finish(b, &err) != FB_OK) {
		check(false, err.msg, label);
	} else {
		check(a->trace.n > 0 && same_trace(a, b), "the same rounds and figures", label);
		check(same_results(a, b), "the same result, bit for bit", label);
		if (a->algo->flags & FB_ALGO_CIRCUIT)
			check(same_loglik(a, b), b->part->kind == FB_SPLIT_HYBRID
			      ? "no log-likelihood claimed (no site holds whole rows or every row)"
			      : "the sites' log-likelihoods, bit for bit", label);
		check(same_ledger(a, b, &extra) && extra == undrawn(a),
		      "ledger = in-process + frame headers and control numbers", label);
		check(knowledge_counted(a) && knowledge_counted(b),
		      "the knowledge counted once per client at the opening", label);
		if (variant == 1)
			check(sat_out(a) > 0, "some clients sat rounds out or lost replies", label);
	}
	fb_params_release(&p);
	fb_run_free(b);
	fb_run_free(a);
}

/* The knowledge of compare's runs (none unless a test sets it). */
const fb_knowledge *compare_knowledge;

/* Knowledge over the study's data ds: X1 - X2 forbidden both ways, X3 -> X4 required, X5
 * in tier 1 and X1 in tier 2 (no arc from X1 into X5). */
static fb_knowledge *study_knowledge(const fb_dataset *ds)
{
	char **names = fb_dataset_names(ds);
	fb_knowledge *k = fb_knowledge_alloc(ds->d, (const char *const *)names);
	fb_error err = { "" };
	bool ok;

	fb_names_free(names, ds->d);
	ok = fb_knowledge_forbid(k, 0, 1, &err) == FB_OK &&
	     fb_knowledge_forbid(k, 1, 0, &err) == FB_OK &&
	     fb_knowledge_require(k, 2, 3, &err) == FB_OK &&
	     fb_knowledge_set_tier(k, 4, 1, &err) == FB_OK &&
	     fb_knowledge_set_tier(k, 0, 2, &err) == FB_OK;
	check(ok, ok ? "the study's knowledge" : err.msg, "knowledge");
	return k;
}

/* FedPC and its ablations, and the federated weight learners (whose clients hold the
 * knowledge inside their optimisation), with the study's knowledge: over the link (each
 * client rebuilding it from the opening) as compare checks them, and in-process honouring
 * it. */
void compare_knowledge_family(const fb_dataset *ds, const fb_partition *local,
                              const fb_dataset *schema, const fb_partition *remote,
                              const fb_graph *truth)
{
	static const char *const names[] = { "fedpc", "fedpc-simple1", "fedpc-simple2",
	                                     "notears-admm", "notears-mlp-admm", "gs-feddag",
	                                     "as-feddag", "as-feddag-linear" };
	fb_knowledge *k = study_knowledge(ds);
	double share;

	compare_knowledge = k;
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		fb_params p;
		fb_run_spec spec = { .algo = names[i], .params = &p, .data = ds, .part = local,
		                     .knowledge = k };
		fb_run *run;
		fb_graph *g = NULL;
		fb_error err = { "" };

		params_of(names[i], small_words(names[i], 0, &share), &p);
		run = fb_run_alloc(&spec, NULL);

		compare(names[i], 0, ds, local, schema, remote, truth);
		if (run != NULL && finish(run, &err) == FB_OK)
			g = fb_run_result(run, &err);
		check(g != NULL && fb_knowledge_violations(k, g, &err) == 0 &&
		      !fb_graph_adjacent(g, 0, 1), "the in-process result honours the knowledge",
		      names[i]);
		fb_graph_free(g);
		fb_run_free(run);
		fb_params_release(&p);
	}
	compare_knowledge = NULL;
	fb_knowledge_free(k);
}

/* Whether the link sees a peer's process end (test-mpi sets it). */
bool link_sees_ends;

/* The server's side of "die": the run opens, then a round fails naming client 2 as ended,
 * well before the deadline. */
void server_die(const fb_dataset *schema, const fb_partition *remote, double timeout)
{
	fb_error err = { { 0 } };
	fb_run_spec spec = { .algo = "notears-admm", .data = schema, .part = remote };
	fb_run *run = fb_run_alloc(&spec, &err);
	double t0 = fb_clock_now();
	int ret;

	check(run != NULL, "the run opens on every client", "die");
	if (run == NULL) {
		printf("  (%s)\n", err.msg);
		return;
	}
	ret = finish(run, &err);
	printf("  the server says: %s\n", err.msg);
	check(ret == FB_ERR && strstr(err.msg, "client 2 (") != NULL &&
	      strstr(err.msg, link_sees_ends ? "has ended (its process is gone)"
	                                     : "did not answer") != NULL,
	      "the dead client is named", "die");
	if (link_sees_ends)
		check(fb_clock_now() - t0 < timeout / 2, "the run stops well before the deadline "
		      "(the link sees the process end on this machine)", "die");
	else
		check(fb_clock_now() - t0 < timeout + 5, "the run stops at the deadline", "die");
	ret = fb_run_step(run, &err);
	check(ret == FB_ERR && strstr(err.msg, "stopped answering earlier") != NULL,
	      "the next round stops at once", "die");
	fb_run_free(run);
}

/* The server's side of "die-partial": gs-feddag drawing 2 of 4 clients a round goes on
 * without client 2, says so once, and finishes. */
void server_die_partial(const fb_dataset *schema, const fb_partition *remote, double timeout)
{
	fb_error err = { { 0 } };
	fb_params p;
	fb_run *run;
	size_t said = 0, left_out = 0;
	double t0 = fb_clock_now();
	int ret;

	params_of("gs-feddag", "it_in=12 it_fl=4 it_max=2 hidden=4 layers=2 r=2", &p);
	run = fb_run_alloc(&(fb_run_spec){ .algo = "gs-feddag", .params = &p, .data = schema,
	                                   .part = remote },
	                   &err);
	fb_params_release(&p);
	check(run != NULL, "the run opens on every client", "die-partial");
	if (run == NULL) {
		printf("  (%s)\n", err.msg);
		return;
	}
	while (!fb_run_done(run) && (ret = fb_run_step(run, &err)) == FB_OK) {
		const fb_trace_rec *rec = fb_run_last(run);

		if (fb_fed_news(run->fed) != NULL) {
			printf("  the server says: %s\n", fb_fed_news(run->fed));
			said += strstr(fb_fed_news(run->fed), "client 2 (") != NULL &&
			        strstr(fb_fed_news(run->fed), "goes on without it") != NULL &&
			        rec->say != NULL && strstr(rec->say, "goes on without it") != NULL;
		}
		left_out += !rec->took[1];
	}
	check(fb_run_done(run), "the run finishes without client 2", "die-partial");
	check(said == 1, "it says so once, naming client 2", "die-partial");
	check(left_out == run->trace.n && fb_fed_gone(run->fed, 1),
	      "client 2 takes part in no round", "die-partial");
	check(fb_clock_now() - t0 < 2 * timeout + 10, "one deadline's wait, no hang",
	      "die-partial");
	fb_run_free(run);
}

/* Client 2's side of "die": build the run, then die without a word. */
void client_die(fb_proto *study, const fb_dataset *mine)
{
	fb_proto_open op;
	fb_error err;

	if (fb_proto_hello(study, mine, "block 2", NULL, &err) != FB_OK ||
	    fb_proto_next(study, &op, &err) != 1 || fb_proto_answer(study, NULL, &err) != FB_OK)
		exit(1);
	fflush(stdout);
	raise(SIGKILL);
}

/* Client c's site file as read: its block with a key column "id" (the global row + 1) in
 * front and its rows in another order (reversed, or rotated by 7); then keyed by "id". */
fb_dataset *site_keyed(const fb_partition *p, size_t c, fb_site_keys *keys)
{
	const fb_client *cl = &p->clients[c];
	const fb_dataset *b = cl->data;
	fb_dataset *s = fb_dataset_alloc(b->n, b->d + 1), *k;
	fb_error err;

	for (size_t j = 0; j <= b->d; j++) { /* first names no block has, to rename freely */
		char tmp[32];

		snprintf(tmp, sizeof tmp, "tmp %zu", j);
		fb_dataset_set_name(s, j, tmp, &err);
	}
	for (size_t j = 0; j < b->d; j++)
		fb_dataset_set_name(s, j + 1, b->vars[j].name, &err);
	fb_dataset_set_name(s, 0, "id", &err);
	for (size_t i = 0; i < b->n; i++) {
		size_t from = c % 2 ? b->n - 1 - i : (i + 7) % b->n;

		s->x[i * s->d] = (double)(cl->rows[from] + 1);
		memcpy(s->x + i * s->d + 1, b->x + from * b->d, b->d * sizeof *s->x);
	}
	k = fb_site_keyed(s, "id", "site", keys, &err);
	fb_dataset_free(s);
	return k;
}

/* A client's side: serve the block of its rank (keyed: as a site file matched by key; die:
 * client 2 dies once the run is built); the process's exit status. */
int serve_block(fb_proto *study, const fb_partition *p, bool die, bool keyed)
{
	int rank = fb_proto_link(study)->rank;
	fb_site_keys keys;
	fb_dataset *mine = keyed ? site_keyed(p, (size_t)rank - 1, &keys)
	                         : fb_dataset_copy(p->clients[rank - 1].data);
	fb_error err;
	char source[32];
	int ret = 0;

	snprintf(source, sizeof source, "block %d", rank);
	if (die && rank == 2)
		client_die(study, mine);
	if (fb_run_serve(study, mine, source, keyed ? &keys : NULL, &err) != FB_OK) {
		fprintf(stderr, "client %d: %s\n", rank, err.msg);
		ret = 1;
	}
	fb_dataset_free(mine);
	return ret;
}

/* Run name with words on part (data ds) with secure=yes (and dp_epsilon= eps, dp_sigma=
 * sigma, when eps > 0) to its end: its graph, its weights (d * d, zero when it gives none)
 * and secure aggregation's exchanges; NULL with a check failed when it cannot. */
static fb_graph *secure_run(const char *name, const char *words, double eps, double sigma,
                            const fb_dataset *ds, const fb_partition *part, double *w,
                            size_t *ex)
{
	fb_fed_options o;
	fb_params p;
	fb_error err;
	fb_graph *g = NULL;
	fb_run *run;
	size_t up, down;

	fb_fed_options_init(&o);
	o.secure = true;
	o.dp_epsilon = eps;
	o.dp_sigma = eps > 0 ? sigma : o.dp_sigma;
	params_of(name, words, &p);
	run = fb_run_alloc(&(fb_run_spec){ .algo = name, .params = &p, .fedopt = &o, .data = ds,
	                                   .part = part }, &err);
	fb_params_release(&p);
	if (run == NULL || finish(run, &err) != FB_OK || (g = fb_run_result(run, &err)) == NULL) {
		check(false, err.msg, name);
		fb_run_free(run);
		return NULL;
	}
	if (fb_run_has_weights(run))
		fb_run_weights(run, w, &err);
	fb_fed_secure_cost(run->fed, &up, &down, ex);
	fb_run_free(run);
	return g;
}

/* Run name with secure=yes in-process and over the link: the same graph and weights bit for
 * bit (the same masks, the same sums in the ring), and two exchanges of secure aggregation's
 * own on each side. */
void compare_secure(const char *name, const char *words, const fb_dataset *ds,
                    const fb_partition *local, const fb_dataset *schema,
                    const fb_partition *remote)
{
	compare_secure_dp(name, words, 0, 0, ds, local, schema, remote);
}

/* compare_secure with dp_epsilon= eps and dp_sigma= sigma (eps 0: none): the noise comes
 * from the run's seed, the same in-process and over the link. */
void compare_secure_dp(const char *name, const char *words, double eps, double sigma,
                       const fb_dataset *ds, const fb_partition *local,
                       const fb_dataset *schema, const fb_partition *remote)
{
	size_t d = ds->d, ex[2] = { 0, 0 };
	double *w = fb_xcalloc(2 * d * d, sizeof *w);
	fb_graph *a = secure_run(name, words, eps, sigma, ds, local, w, &ex[0]);
	fb_graph *b = a != NULL ? secure_run(name, words, eps, sigma, schema, remote, w + d * d,
	                                     &ex[1]) : NULL;
	char label[96];

	snprintf(label, sizeof label, "%s%s", name, eps > 0 ? " (dp_epsilon=)" : "");
	if (b != NULL) {
		check(same_graph(a, b), "secure=yes: the in-process graph over the link", label);
		check(memcmp(w, w + d * d, d * d * sizeof *w) == 0,
		      "secure=yes: the in-process weights over the link", label);
		check(ex[0] == 2 && ex[1] == 2, "secure=yes: two exchanges of its own", label);
	}
	fb_graph_free(a);
	fb_graph_free(b);
	free(w);
}

/* A shared discrete file, or NULL with a message when it is absent. */
fb_dataset *shared_discrete(const char *name)
{
	const char *top = getenv("top_srcdir");
	char path[4096];
	fb_csv_options o;

	snprintf(path, sizeof path, "%s/../shared/data/discrete10000/%s",
	         top != NULL ? top : ".", name);
	if (access(path, R_OK) != 0) {
		printf("skipped: %s is absent\n", path);
		return NULL;
	}
	fb_csv_options_init(&o);
	o.discrete = FB_DISCRETE_ALL;
	return fb_csv_read(path, &o, NULL, NULL);
}
