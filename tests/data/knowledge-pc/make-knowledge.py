#!/usr/bin/env python3
"""Background knowledge for PC on the thirteen bnlearn networks of tests/data/causal-learn,
and causal-learn's PC output with it.

For every network, five knowledge sets are drawn with a fixed seed from the true network:
  k0  consistent arcs: true arcs required, reversed true arcs and absent arcs forbidden;
  k1  arcs against the truth: reversed true arcs required, true arcs forbidden one way,
      true edges forbidden both ways;
  k2  tiers along a topological order of the truth (a random half of the variables);
  k3  tiers against it (the same split reversed) and a required arc that the tiers allow;
  k4  mixed: pairs forbidden both ways, arcs required between pairs that the truth leaves
      non-adjacent, a tier that forbids arcs within it, and a true arc required.
A statement that would contradict the ones before it (a required arc that is forbidden,
directly or by the tiers, or that closes a cycle of required arcs) is left out, as fedbn's
knowledge refuses it.  Each set is written as Tetrad's knowledge text (<net>_k<K>.txt) and
causal-learn's pc(data, 0.05, chisq, stable=True, uc_rule=0, uc_priority=-1,
background_knowledge=...) output as a d x d matrix (<net>_k<K>_expected.txt).

Usage (from the causal-learn checkout, with fedbn's tree as FEDBN):
  PYTHONPATH=. python3 $FEDBN/tests/data/knowledge-pc/make-knowledge.py $FEDBN [NET...]
"""
import csv
import gzip
import os
import random
import sys

import numpy as np

NETS = ["cancer", "earthquake", "survey", "asia", "sachs", "child", "insurance", "water",
        "alarm", "barley", "hailfinder", "hepar2", "win95pts"]
SHARED = {"asia", "sachs", "alarm"}


def load(top, net):
    """Names, data and true arcs (index pairs) of a network."""
    if net in SHARED:
        path = os.path.join(top, "..", "shared", "data", "discrete10000", net + ".csv")
        fh = open(path)
    else:
        path = os.path.join(top, "tests", "data", "causal-learn", net + ".csv.gz")
        fh = gzip.open(path, "rt")
    with fh:
        rows = list(csv.reader(fh))
    names = rows[0]
    data = np.array(rows[1:], dtype=float)
    index = {n: i for i, n in enumerate(names)}
    arcs = []
    if net in SHARED:
        with open(os.path.join(top, "..", "shared", "data", "discrete10000",
                               net + "_truth.csv")) as fh:
            for r in list(csv.reader(fh))[1:]:
                arcs.append((index[r[0]], index[r[1]]))
    else:
        path = os.path.join("tests", "TestData", "bnlearn_discrete_10000", "truth_dag_graph",
                            net + ".graph.txt")
        with open(path) as fh:
            for line in fh:
                p = line.split()
                if len(p) == 4 and p[2] == "-->":
                    arcs.append((index[p[1]], index[p[3]]))
    return names, data, arcs


class Knowledge:
    """fedbn's rules: every statement checked against the ones before."""

    def __init__(self, d):
        self.d = d
        self.forbid = set()
        self.require = set()
        self.tier = {}
        self.within = set()

    def forbids(self, a, b):
        ta, tb = self.tier.get(a, 0), self.tier.get(b, 0)
        by_tier = ta and tb and (ta > tb or (ta == tb and ta in self.within))
        return (a, b) in self.forbid or (b, a) in self.require or bool(by_tier)

    def reaches(self, a, b):
        seen, todo = {a}, [a]
        while todo:
            v = todo.pop()
            if v == b:
                return True
            for (x, y) in self.require:
                if x == v and y not in seen:
                    seen.add(y)
                    todo.append(y)
        return False

    def add_forbid(self, a, b):
        if a != b and (a, b) not in self.require:
            self.forbid.add((a, b))

    def add_require(self, a, b):
        if a != b and not self.forbids(a, b) and not self.reaches(b, a):
            self.require.add((a, b))

    def set_tier(self, v, t):
        old = self.tier.get(v)
        self.tier[v] = t
        if any(self.forbids(a, b) for (a, b) in self.require):
            if old is None:
                del self.tier[v]
            else:
                self.tier[v] = old

    def forbid_within(self, t):
        self.within.add(t)
        if any(self.forbids(a, b) for (a, b) in self.require):
            self.within.discard(t)


def topo(d, arcs):
    """A topological order of the true network."""
    indeg = [0] * d
    for (_, b) in arcs:
        indeg[b] += 1
    order, ready = [], [v for v in range(d) if indeg[v] == 0]
    while ready:
        v = ready.pop(0)
        order.append(v)
        for (a, b) in arcs:
            if a == v:
                indeg[b] -= 1
                if indeg[b] == 0:
                    ready.append(b)
    return order


def tiers_of(rng, d, arcs, n_tiers, reverse):
    """A random half of the variables split into tiers along the topological order."""
    order = topo(d, arcs)
    if reverse:
        order = order[::-1]
    chosen = sorted(rng.sample(range(d), max(2, d // 2)), key=order.index)
    size = max(1, (len(chosen) + n_tiers - 1) // n_tiers)
    return [(v, 1 + i // size) for i, v in enumerate(chosen)]


def draw(rng, d, arcs, which):
    """Knowledge set number `which` for a network with true arcs `arcs`."""
    k = Knowledge(d)
    adj = set(arcs) | {(b, a) for (a, b) in arcs}
    absent = [(a, b) for a in range(d) for b in range(d) if a != b and (a, b) not in adj]
    few = lambda lst, n: rng.sample(lst, min(n, len(lst)))
    if which == 0:
        for (a, b) in few(arcs, 2):
            k.add_require(a, b)
        for (a, b) in few(arcs, 3):
            k.add_forbid(b, a)
        for (a, b) in few(absent, 2):
            k.add_forbid(a, b)
    elif which == 1:
        for (a, b) in few(arcs, 2):
            k.add_require(b, a)
        for (a, b) in few(arcs, 3):
            k.add_forbid(a, b)
        for (a, b) in few(arcs, 2):
            k.add_forbid(a, b)
            k.add_forbid(b, a)
    elif which == 2:
        for (v, t) in tiers_of(rng, d, arcs, 3, False):
            k.set_tier(v, t)
    elif which == 3:
        for (v, t) in tiers_of(rng, d, arcs, 2, True):
            k.set_tier(v, t)
        for (a, b) in few(arcs, 3):
            k.add_require(a, b)
    else:
        for (a, b) in few(absent, 3):
            k.add_forbid(a, b)
            k.add_forbid(b, a)
        for (a, b) in few(absent, 2):
            k.add_require(a, b)
        for (a, b) in few(arcs, 1):
            k.add_require(a, b)
        for (v, t) in tiers_of(rng, d, arcs, 4, False)[:3]:
            k.set_tier(v, t)
        k.forbid_within(1)
    return k


def write_knowledge(path, k, names):
    """Tetrad's knowledge text."""
    with open(path, "w") as fh:
        fh.write("/knowledge\naddtemporal\n")
        for t in sorted(set(k.tier.values())):
            members = sorted(v for v in k.tier if k.tier[v] == t)
            star = "*" if t in k.within else ""
            fh.write("%d%s %s\n" % (t, star, " ".join(names[v] for v in members)))
        fh.write("\nforbiddirect\n")
        for (a, b) in sorted(k.forbid):
            fh.write("%s %s\n" % (names[a], names[b]))
        fh.write("\nrequiredirect\n")
        for (a, b) in sorted(k.require):
            fh.write("%s %s\n" % (names[a], names[b]))


def run_pc(data, k):
    """causal-learn's PC with the knowledge; its d x d matrix."""
    from causallearn.graph.GraphNode import GraphNode
    from causallearn.search.ConstraintBased.PC import pc
    from causallearn.utils.cit import chisq
    from causallearn.utils.PCUtils.BackgroundKnowledge import BackgroundKnowledge

    node = [GraphNode("X%d" % (i + 1)) for i in range(data.shape[1])]
    bk = BackgroundKnowledge()
    for (a, b) in sorted(k.forbid):
        bk.add_forbidden_by_node(node[a], node[b])
    for (a, b) in sorted(k.require):
        bk.add_required_by_node(node[a], node[b])
    for v in sorted(k.tier):
        bk.add_node_to_tier(node[v], k.tier[v])
    for t in sorted(k.within):
        bk.forbid_within_tier(t)
    cg = pc(data, 0.05, chisq, True, 0, -1, background_knowledge=bk, show_progress=False)
    return cg.G.graph


def main():
    top = sys.argv[1]
    nets = sys.argv[2:] or NETS
    out = os.path.join(top, "tests", "data", "knowledge-pc")
    for net in nets:
        names, data, arcs = load(top, net)
        for which in range(5):
            rng = random.Random("%s-%d" % (net, which))
            k = draw(rng, len(names), arcs, which)
            base = os.path.join(out, "%s_k%d" % (net, which))
            write_knowledge(base + ".txt", k, names)
            g = run_pc(data, k)
            with open(base + "_expected.txt", "w") as fh:
                for row in g:
                    fh.write(" ".join("%d" % v for v in row) + "\n")
            print(net, which, flush=True)


if __name__ == "__main__":
    main()
