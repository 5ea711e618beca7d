#!/usr/bin/python3
"""causal-learn's fci on a CSV file (a header, then numbers), as fedbn's
`algo fci; set compat=causal-learn test=TEST alpha=0.05` runs it: fci(data, TEST, 0.05) with
every other argument at its default.  TEST is chisq (the default), gsq or fisherz.  Prints
the processor seconds of the call (time.process_time) as "cpu S", then the PAG as causal-learn
holds it, one row of G.graph a line (G[i][j] the mark at i of the edge between i and j: -1 a
tail, 1 an arrowhead, 2 a circle, 0 no edge).

    PYTHONPATH=CAUSAL-LEARN-CHECKOUT python3 fci-causal-learn.py FILE [TEST]

Two modules causal-learn imports for other parts (momentchi2 for its RCIT test, tqdm for
progress bars) get empty stand-ins when they are not installed; fci calls neither."""
import contextlib
import sys
import time
import warnings

import causal_learn_stand_ins

causal_learn_stand_ins.install()
import numpy as np  # noqa: E402
from causallearn.search.ConstraintBased.FCI import fci  # noqa: E402

warnings.filterwarnings("ignore")
test = sys.argv[2] if len(sys.argv) > 2 else "chisq"
data = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
t0 = time.process_time()
with contextlib.redirect_stdout(sys.stderr):  # fci prints the edges it orients
    g, _ = fci(data, test, 0.05, show_progress=False)
cpu = time.process_time() - t0
print("cpu %.4f" % cpu)
for row in g.graph:
    print(" ".join("%d" % v for v in row))
