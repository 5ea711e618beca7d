/* CPDAG tools (ALGORITHMS.md §6.2, §6.3, §9): Meek's orientation rules, the CPDAG of a DAG,
 * a consistent DAG extension of a PDAG (Dor & Tarsi), and the structural Hamming distance
 * between PDAGs.  Graphs are fb_graph: directed and undirected marks, never bidirected. */
#ifndef FEDBN_CPDAG_H
#define FEDBN_CPDAG_H

#include <stdbool.h>
#include <stddef.h>

#include "fedbn/core.h"
#include "fedbn/graph.h"

/* Apply Meek's rules to g until none applies, orienting undirected edges only (a directed
 * edge is never reversed or removed), and return how many edges were oriented.  For an
 * undirected a - b, each rule orients a -> b when
 *   R1  some c -> a with c and b not adjacent;
 *   R2  some c with a -> c -> b;
 *   R3  two non-adjacent c, e with a - c -> b and a - e -> b;
 *   R4  (rule4 only) some c, e with a - c -> e -> b, a adjacent to e, c and b not adjacent.
 * Passes visit the pairs (a, b) in row-major order and apply the first rule that holds, so
 * the result is fixed even when the orientations given are not consistent.  An orientation
 * a -> b that would close a directed cycle (a directed path already leads from b to a) is
 * not made; that happens only when the orientations given are not consistent, since on a
 * pattern of v-structures the rules never close a cycle.  R1-R3 suffice
 * when every orientation comes from v-structures (Meek 1995); R4 matters once other
 * knowledge has oriented edges.  Weights of oriented edges keep their forward value. */
size_t fb_cpdag_meek(fb_graph *g, bool rule4);

/* The CPDAG (essential graph) of a DAG: its skeleton, the edges of its v-structures
 * i -> k <- j (i, j not adjacent) directed, then R1-R3 to closure.  Unweighted, with dag's
 * node names; caller frees.  NULL with the reason when dag has an undirected edge or a
 * directed cycle. */
fb_graph *fb_cpdag_from_dag(const fb_graph *dag, fb_error *err);

/* A DAG extension of the PDAG p by Dor & Tarsi (1992): repeatedly remove a vertex x that has
 * no outgoing directed edge and whose undirected neighbours are adjacent to every other
 * vertex adjacent to x (the smallest index when several qualify), directing its undirected
 * edges into x.  When no vertex qualifies (p has no consistent extension), the remaining
 * undirected edges are directed along the topological order of the directed part (index
 * order if that has a cycle), as pcalg's pdag2dag does, and *fallback (may be NULL) is set;
 * it is cleared otherwise.  The result keeps p's directed edges, names and skeleton; when p
 * extends, it has p's v-structures and no new ones.  Caller frees. */
fb_graph *fb_cpdag_to_dag(const fb_graph *p, bool *fallback);
/* The same elimination without a copy of p: fn(ctx, from, to) for each undirected edge of p
 * as it directs it; false when no vertex qualified before all were removed (fn has then
 * seen only part of them, and fb_cpdag_to_dag would fall back). */
bool fb_cpdag_extension_each(const fb_graph *p, void (*fn)(void *ctx, size_t from, size_t to),
                             void *ctx);

/* Structural Hamming distance between two PDAGs in the sense of Tsamardinos et al. (2006)
 * and pcalg's shd: the number of unordered pairs whose relation (none, i -> j, j -> i,
 * i - j) differs, so an insertion, a deletion, a reversal or an (un)orientation costs 1.
 * FB_ERR with the reason when the graphs' nodes differ (count or names). */
int fb_cpdag_shd(const fb_graph *a, const fb_graph *b, size_t *shd, fb_error *err);

/* The unshielded triples of g (i and j adjacent to k, not to each other, any edge marks) as
 * (i, k, j) with i < j, sorted by (i, j, k), into *out (caller frees); their count. */
size_t fb_graph_unshielded_triples(const fb_graph *g, size_t **out);

/* Number of v-structures of g: triples i -> k <- j with i < j not adjacent. */
size_t fb_cpdag_n_vstructures(const fb_graph *g);

#endif
