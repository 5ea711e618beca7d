import sys, time, gzip, warnings
import numpy as np
warnings.filterwarnings("ignore")
from causallearn.search.ConstraintBased.FCI import fci
path, test, out = sys.argv[1], sys.argv[2], sys.argv[3]
op = gzip.open if path.endswith(".gz") else open
with op(path, "rt") as f:
    data = np.loadtxt(f, delimiter=",", skiprows=1)
t0 = time.process_time()
g, edges = fci(data, test, 0.05, show_progress=False)
t1 = time.process_time()
np.savetxt(out, g.graph, fmt="%d")
print(path, data.shape, "cpu %.2f s" % (t1 - t0), flush=True)
