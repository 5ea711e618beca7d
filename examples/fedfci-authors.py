"""The FedC2SL side of examples/fedfci-authors.sh, and the scorer of both sides.

  fedfci-authors.py theirs ROOT FILE.csv...   FedC2SL's FedFCI (fed_fci, indep_test='fed_cit',
      alpha 0.05, 10 clients, as its test script calls it) on each file: name, SHD to the
      true PAG (FILE.pkl; causal-learn's SHD), processor seconds of the call alone
  fedfci-authors.py score FILE.pkl < RESULT   the SHD of the PAG that fedbn's `result` printed
      (lines such as 'col_3 <-o col_7'; col_k is the truth's X(k+1), as FedC2SL names it)
"""
import contextlib
import io
import os
import pickle
import re
import sys
import time


def theirs(root, files):
    sys.path.insert(0, root)
    os.chdir(root)
    sys.argv = sys.argv[:1]  # its logger parses the command line on import
    from alg.FedFCI import fed_fci
    from causallearn.graph.SHD import SHD
    import pandas as pd
    for path in files:
        df = pd.read_csv(path)
        truth = pickle.load(open(path[:-4] + '.pkl', 'rb'))
        t0 = time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):
            g, _ = fed_fci(df.values, indep_test='fed_cit', col_names=df.columns, alpha=0.05,
                           client_num=10, dropout=0)
        t1 = time.process_time()
        print(os.path.basename(path), SHD(truth, g).get_shd(), '%.3f' % (t1 - t0), flush=True)


def score(pkl, text):
    from causallearn.graph.Edge import Edge
    from causallearn.graph.Endpoint import Endpoint
    from causallearn.graph.GeneralGraph import GeneralGraph
    from causallearn.graph.SHD import SHD
    truth = pickle.load(open(pkl, 'rb'))
    nodes = {n.get_name(): n for n in truth.get_nodes()}
    est = GeneralGraph(list(truth.get_nodes()))
    ends = {'<': Endpoint.ARROW, '>': Endpoint.ARROW, 'o': Endpoint.CIRCLE, '-': Endpoint.TAIL}
    for line in text.splitlines():
        m = re.match(r'^\s+col_(\d+) ([<o-])-([>o-]) col_(\d+)$', line)
        if m:
            a = nodes['X%d' % (int(m.group(1)) + 1)]
            b = nodes['X%d' % (int(m.group(4)) + 1)]
            est.add_edge(Edge(a, b, ends[m.group(2)], ends[m.group(3)]))
    print(SHD(truth, est).get_shd())


if __name__ == '__main__':
    if sys.argv[1] == 'theirs':
        theirs(sys.argv[2], sys.argv[3:])
    else:
        score(sys.argv[2], sys.stdin.read())
