/* A run's background knowledge on its way to the clients: words appended to the parameters of
 * the opening of a run, after one empty word (a parameter is never empty).  Statements name
 * variables, never indices, so that each client rebuilds the knowledge over its own columns
 * in whatever order it holds them:
 *   "T" NAME TIER    NAME is in tier TIER (decimal, from 1)
 *   "W" TIER         no arc within tier TIER
 *   "F" FROM TO      FROM -> TO is forbidden
 *   "R" FROM TO      FROM -> TO is required
 * Tiers come first, then forbidden arcs, then required ones, so that the statements can be
 * checked one by one as the knowledge itself checks them. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fedbn/fed.h"

/* Append one word to the list (cap grows as needed). */
static void words_push(char ***w, size_t *n, size_t *cap, char *word)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*w = fb_xreallocarray(*w, *cap, sizeof **w);
	}
	(*w)[(*n)++] = word;
}

/* The tiers' words: each variable's tier, then each tier forbidding arcs within it. */
static void words_tiers(const fb_knowledge *k, char ***w, size_t *n, size_t *cap)
{
	size_t d = fb_knowledge_d(k);
	int top = 0;

	for (size_t v = 0; v < d; v++) {
		int t = fb_knowledge_tier(k, v);

		if (t <= 0)
			continue;
		words_push(w, n, cap, fb_xstrdup("T"));
		words_push(w, n, cap, fb_xstrdup(fb_knowledge_name(k, v)));
		words_push(w, n, cap, fb_xasprintf("%d", t));
		top = t > top ? t : top;
	}
	for (int t = 1; t <= top; t++)
		if (fb_knowledge_within_forbidden(k, t)) {
			words_push(w, n, cap, fb_xstrdup("W"));
			words_push(w, n, cap, fb_xasprintf("%d", t));
		}
}

/* The knowledge as words (caller frees with fb_names_free); their count, 0 when k says
 * nothing. */
size_t fb_fed_knowledge_words(const fb_knowledge *k, char ***words)
{
	size_t d = fb_knowledge_d(k), n = 0, cap = 0;
	char **w = NULL;

	*words = NULL;
	if (fb_knowledge_is_empty(k))
		return 0;
	words_push(&w, &n, &cap, fb_xstrdup(""));
	words_tiers(k, &w, &n, &cap);
	for (int pass = 0; pass < 2; pass++)
		for (size_t a = 0; a < d; a++)
			for (size_t b = 0; b < d; b++) {
				if (a == b || !(pass == 0 ? fb_knowledge_forbidden_directly(k, a, b)
				                          : fb_knowledge_requires(k, a, b)))
					continue;
				words_push(&w, &n, &cap, fb_xstrdup(pass == 0 ? "F" : "R"));
				words_push(&w, &n, &cap, fb_xstrdup(fb_knowledge_name(k, a)));
				words_push(&w, &n, &cap, fb_xstrdup(fb_knowledge_name(k, b)));
			}
	*words = w;
	return n;
}

/* Bytes the words take on the wire (each with its terminating NUL). */
size_t fb_fed_words_bytes(char *const *words, size_t n)
{
	size_t b = 0;

	for (size_t i = 0; i < n; i++)
		b += strlen(words[i]) + 1;
	return b;
}

/* Column of ds called name, or FB_ERR with a sentence. */
static int word_var(const fb_dataset *ds, const char *name, size_t *v, fb_error *err)
{
	for (size_t j = 0; j < ds->d; j++)
		if (strcmp(ds->vars[j].name, name) == 0) {
			*v = j;
			return FB_OK;
		}
	return fb_fail(err, "the server's knowledge names '%s', a variable this client does "
	                    "not hold", name);
}

/* A tier number of the words, or FB_ERR. */
static int word_tier(const char *s, int *t, fb_error *err)
{
	char *end;
	long x = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || x < 1 || x > 1000000)
		return fb_fail(err, "the server's knowledge has '%s' for a tier", s);
	*t = (int)x;
	return FB_OK;
}

/* Apply the statement at w[0 ..) (n words left) to k; the words it took, 0 on failure. */
static size_t word_statement(fb_knowledge *k, const fb_dataset *ds, char *const *w, size_t n,
                             fb_error *err)
{
	size_t a = 0, b = 0;
	int t = 0;

	if (strcmp(w[0], "W") == 0 && n >= 2)
		return word_tier(w[1], &t, err) == FB_OK &&
		                       fb_knowledge_forbid_within_tier(k, t, err) == FB_OK
		               ? 2 : 0;
	if (n < 3 || (strcmp(w[0], "T") != 0 && strcmp(w[0], "F") != 0 && strcmp(w[0], "R") != 0))
		return fb_fail(err, "the server's knowledge is garbled at '%s'", w[0]), 0;
	if (word_var(ds, w[1], &a, err) != FB_OK)
		return 0;
	if (w[0][0] == 'T')
		return word_tier(w[2], &t, err) == FB_OK &&
		                       fb_knowledge_set_tier(k, a, t, err) == FB_OK
		               ? 3 : 0;
	if (word_var(ds, w[2], &b, err) != FB_OK)
		return 0;
	if ((w[0][0] == 'F' ? fb_knowledge_forbid : fb_knowledge_require)(k, a, b, err) != FB_OK)
		return 0;
	return 3;
}

/* Rebuild the knowledge of the words (the empty word first) over ds's variables; NULL with
 * the reason. */
fb_knowledge *fb_fed_knowledge_read(char *const *words, size_t n, const fb_dataset *ds,
                                    fb_error *err)
{
	char **names = fb_dataset_names(ds);
	fb_knowledge *k = fb_knowledge_alloc(ds->d, (const char *const *)names);
	size_t at = n > 0 && words[0][0] == '\0' ? 1 : 0;

	fb_names_free(names, ds->d);
	while (at < n) {
		size_t took = word_statement(k, ds, words + at, n - at, err);

		if (took == 0) {
			fb_knowledge_free(k);
			return NULL;
		}
		at += took;
	}
	return k;
}
