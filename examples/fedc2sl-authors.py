"""fedc2sl against the FedC2SL authors' code (wangzhaoyu07/FedC2SL) on the data they ship.

For each file (their synthetic iid files synthetic_data_node_num_D_round_R.csv with the true
DAG pickled beside it, and their discretised Sachs data with gt.graph.txt) and each client
count K, this runs, back to back in this process's processor:
  - theirs: alg.FedPC.pc(data, 0.05, 'fed_cit', True, 0, -1, client_num=K), the call of
    their TestFedC2SL_on_Synthetic_and_Real_Data.py (processor time by time.process_time);
  - fedbn: 'fedbn -c "load FILE discrete=all; split horizontal K seed=1; algo fedc2sl;
    set test=chi2 alpha=0.05; run; result"', the files of one size and K in one process
    (processor time of the child by getrusage, divided by the files: loading included);
and scores both CPDAGs with causal-learn's SHD against dag2cpdag(truth), as their script
does.  It prints one line per (file, K) and a summary per (data, K).

Their code imports igraph and pgmpy in utils/Synthetic.py, which only simulates data; pgmpy
is not packaged by Debian, so its modules are replaced by empty ones here (the comparison
never simulates).  Their chi-square is an estimate from random projections of each client's
standardised table (fed_cit.py: 50 stable-distribution samples per stratum, a secure sum and
a geometric-mean estimator), so their p-values are noisy; fedbn sums the tables themselves.

  python3 fedc2sl-authors.py FEDBN AUTHORS_DIR CAUSAL_LEARN_DIR SIZES REPEATS KS SACHS_KS [ours]
    SIZES: e.g. 10,20; REPEATS: files per size (their rounds 0..REPEATS-1); KS: client counts
    for the synthetic files; SACHS_KS: for Sachs (empty: none); 'ours' skips their code.
"""
import os
import resource
import subprocess
import sys
import tempfile
import time
import types


def stub_missing(names):
    """Empty modules for imports that the comparison never uses."""
    for name in names:
        try:
            __import__(name)
        except ImportError:
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                mod = ".".join(parts[:i])
                if mod not in sys.modules:
                    sys.modules[mod] = types.ModuleType(mod)
    m = sys.modules.get("pgmpy.models.BayesianModel")
    if m is not None and not hasattr(m, "BayesianModel"):
        m.BayesianModel = object
    f = sys.modules.get("pgmpy.factors.discrete")
    if f is not None and not hasattr(f, "TabularCPD"):
        f.TabularCPD = object
    s = sys.modules.get("pgmpy.sampling")
    if s is not None and not hasattr(s, "BayesianModelSampling"):
        s.BayesianModelSampling = object


def child_cpu():
    """Processor seconds of the finished children so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_fedbn(fedbn, csvs, k):
    """fedbn's fedc2sl on each of csvs over k clients, all in one process (its start paid
    once): each file's edges as (a, b, directed), and the processor seconds per file, its
    loading included."""
    cmd = "".join("load '%s' discrete=all; split horizontal %d seed=1; algo fedc2sl; "
                  "set test=chi2 alpha=0.05; run; result; " % (csv, k) for csv in csvs)
    before = child_cpu()
    out = subprocess.run([fedbn, "--bail", "--no-pane", "--quiet", "-c", cmd],
                         capture_output=True, text=True, check=True).stdout
    cpu = (child_cpu() - before) / len(csvs)
    graphs, on = [], False
    for line in out.splitlines():
        if line.startswith("edges ("):
            graphs.append([])
            on = True
            continue
        if on and line.startswith("  "):
            w = line.split()
            if len(w) == 3 and w[1] in ("->", "--"):
                graphs[-1].append((w[0], w[2], w[1] == "->"))
                continue
        on = False
    if len(graphs) != len(csvs):
        raise SystemExit("fedbn printed %d graphs for %d files" % (len(graphs), len(csvs)))
    return graphs, cpu


def fedbn_loading(fedbn, csvs, k):
    """Processor seconds per file of the same fedbn process without the runs: its start, the
    loading and the splits."""
    cmd = "".join("load '%s' discrete=all; split horizontal %d seed=1; " % (csv, k)
                  for csv in csvs)
    before = child_cpu()
    subprocess.run([fedbn, "--bail", "--no-pane", "--quiet", "-c", cmd],
                   capture_output=True, text=True, check=True)
    return (child_cpu() - before) / len(csvs)


def to_general_graph(names, edges):
    """A causal-learn GeneralGraph over names with edges."""
    from causallearn.graph.GeneralGraph import GeneralGraph
    from causallearn.graph.GraphNode import GraphNode
    from causallearn.graph.Edge import Edge
    from causallearn.graph.Endpoint import Endpoint
    nodes = [GraphNode(n) for n in names]
    g = GeneralGraph(nodes)
    at = {n: nodes[i] for i, n in enumerate(names)}
    for a, b, directed in edges:
        g.add_edge(Edge(at[a], at[b], Endpoint.TAIL,
                        Endpoint.ARROW if directed else Endpoint.TAIL))
    return g


def rename(truth, names):
    """truth (a GeneralGraph) with its nodes renamed names, in order."""
    for node, name in zip(truth.get_nodes(), names):
        node.set_name(name)
    return truth


def theirs(data, k):
    """Their FedC2SL on data over k clients: the graph and processor seconds."""
    import numpy as np
    from alg.FedPC import pc
    np.random.seed(0)
    t = time.process_time()
    cg = pc(data, 0.05, "fed_cit", True, 0, -1, node_names=None, client_num=k,
            show_progress=False)
    return cg.G, time.process_time() - t


def one(label, k, edges, cpu_b, names, truth_cpdag, ours_only, data):
    """One (file, K): SHD and processor time of both; a row."""
    from causallearn.graph.SHD import SHD
    # causal-learn's SHD reads the nodes by position: the same order as the truth's
    shd_b = SHD(truth_cpdag, to_general_graph(names, edges)).get_shd()
    shd_a, cpu_a = float("nan"), float("nan")
    if not ours_only:
        g, cpu_a = theirs(data, k)
        shd_a = SHD(truth_cpdag, g).get_shd()
    print("%-22s K=%-3d theirs SHD %5s cpu %9.3f s | fedbn SHD %3d cpu %7.4f s" %
          (label, k, shd_a, cpu_a, shd_b, cpu_b), flush=True)
    return shd_a, cpu_a, shd_b, cpu_b


def synthetic(top, d, r):
    """Their synthetic file (d, round r): path, data, names, truth CPDAG."""
    import pickle
    import pandas as pd
    from causallearn.utils.DAG2CPDAG import dag2cpdag
    csv = os.path.join(top, "data/synthetic/iid/synthetic_data_node_num_%d_round_%d.csv" % (d, r))
    df = pd.read_csv(csv)
    truth = pickle.load(open(csv[:-4] + ".pkl", "rb"))
    names = list(df.columns)
    if len(truth.get_nodes()) != len(names):
        raise SystemExit("%s: %d columns but %d nodes in the truth" %
                         (csv, len(names), len(truth.get_nodes())))
    return csv, df.values, names, dag2cpdag(rename(truth, names))


def sachs(top, tmp):
    """Their discretised Sachs data as CSV: path, data, names, truth CPDAG."""
    import numpy as np
    from causallearn.utils.DAG2CPDAG import dag2cpdag
    from causallearn.utils.TXT2GeneralGraph import txt2generalgraph
    src = os.path.join(top, "data/science-protein")
    data = np.loadtxt(os.path.join(src, "discrete_sachs.txt"), skiprows=1)
    names = ["X%d" % (i + 1) for i in range(data.shape[1])]
    csv = os.path.join(tmp, "sachs.csv")
    with open(csv, "w") as f:
        f.write(",".join(names) + "\n")
        for row in data.astype(int):
            f.write(",".join(str(v) for v in row) + "\n")
    truth = txt2generalgraph(os.path.join(src, "gt.graph.txt"))
    return csv, data, names, dag2cpdag(truth)


def summary(label, k, rows, load):
    """The mean line of rows; load: fedbn's processor seconds per file without its runs."""
    n = len(rows)
    mean = [sum(r[i] for r in rows) / n for i in range(4)]
    run = max(mean[3] - load, 1e-4)
    print("| %-6s | %3d | %5d | %6.2f | %6.2f | %9.3f | %8.4f | %8.4f | %6.0f | %6.0f |" %
          (label, k, n, mean[0], mean[2], mean[1], mean[3], run, mean[1] / mean[3],
           mean[1] / run), flush=True)


def main():
    fedbn, top, cl = sys.argv[1:4]
    sizes = [int(s) for s in sys.argv[4].split(",") if s]
    repeats = int(sys.argv[5])
    ks = [int(s) for s in sys.argv[6].split(",") if s]
    sachs_ks = [int(s) for s in sys.argv[7].split(",") if s]
    ours_only = len(sys.argv) > 8 and sys.argv[8] == "ours"
    del sys.argv[1:]  # their CIT parses the command line (fed_cit.parse_args)
    sys.path[:0] = [top, cl]
    os.chdir(top)  # their modules read paths relative to their folder
    stub_missing(["igraph", "pgmpy.models.BayesianModel", "pgmpy.factors.discrete",
                  "pgmpy.sampling"])
    if not ours_only:
        try:
            import alg.FedPC  # noqa: F401  (their code, and what it imports)
        except ImportError as e:
            print("their code cannot run here (%s): their columns are left out" % e)
            ours_only = True
    table = []
    with tempfile.TemporaryDirectory() as tmp:
        for d in sizes:
            for k in ks:
                files = [synthetic(top, d, r) for r in range(repeats)]
                graphs, cpu_b = run_fedbn(fedbn, [f[0] for f in files], k)
                load = fedbn_loading(fedbn, [f[0] for f in files], k)
                rows = [one("synthetic d=%d r=%d" % (d, r), k, graphs[r], cpu_b, files[r][2],
                            files[r][3], ours_only, files[r][1]) for r in range(repeats)]
                table.append(("d=%d" % d, k, rows, load))
        if sachs_ks:
            csv, data, names, truth = sachs(top, tmp)
            for k in sachs_ks:
                graphs, cpu_b = run_fedbn(fedbn, [csv], k)
                load = fedbn_loading(fedbn, [csv], k)
                rows = [one("sachs", k, graphs[0], cpu_b, names, truth, ours_only, data)]
                table.append(("sachs", k, rows, load))
    print()
    print("mean per file; fedbn's processor time in all (its start shared by the files, the data")
    print("read and split) and in its runs alone (the same process without the runs taken off);")
    print("theirs is their pc() call alone, the data already read")
    print("| data   |   K | files | SHD    | SHD    | cpu (s)   | cpu (s)  | cpu (s)  | ratio  | ratio  |")
    print("|        |     |       | theirs | fedbn  | theirs    | fedbn    | fedbn    | to all | to run |")
    print("|        |     |       |        |        |           | all      | run      |        |        |")
    print("|--------|-----|-------|--------|--------|-----------|----------|----------|--------|--------|")
    for label, k, rows, load in table:
        summary(label, k, rows, load)


if __name__ == "__main__":
    main()
