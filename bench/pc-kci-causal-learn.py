#!/usr/bin/python3
"""causal-learn's pc with its KCI test on a CSV file (a header, then numbers), as fedbn's
`algo pc; set test=kci alpha=0.05 compat=causal-learn` runs it: pc(data, 0.05, "kci",
stable=True, uc_rule=0, uc_priority=-1), KCI at its defaults.  Prints the processor seconds
of the call (time.process_time) as "cpu S", then one line per edge of the graph, "i -> j" or
"i -- j" (0-based, i < j for the undirected ones), in the order of i, then j.

    PYTHONPATH=CAUSAL-LEARN-CHECKOUT python3 pc-kci-causal-learn.py FILE

Two modules causal-learn imports for other parts (momentchi2 for its RCIT test, tqdm for
progress bars) get empty stand-ins when they are not installed; pc with KCI calls neither."""
import sys
import time

import causal_learn_stand_ins

causal_learn_stand_ins.install()
import numpy as np  # noqa: E402
from causallearn.search.ConstraintBased.PC import pc  # noqa: E402

data = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
t0 = time.process_time()
cg = pc(data, 0.05, "kci", stable=True, uc_rule=0, uc_priority=-1, show_progress=False)
cpu = time.process_time() - t0
g = cg.G.graph
print("cpu %.4f" % cpu)
for i in range(g.shape[0]):
    for j in range(g.shape[0]):
        if g[i, j] == -1 and g[j, i] == 1:
            print("%d -> %d" % (i, j))
        elif i < j and g[i, j] == -1 and g[j, i] == -1:
            print("%d -- %d" % (i, j))
