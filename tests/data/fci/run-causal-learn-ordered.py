# run-causal-learn.py with getPossibleDsep taking x's neighbours in index order instead of a set's order
import sys, inspect, time, warnings
import numpy as np
warnings.filterwarnings("ignore")
import causallearn.search.ConstraintBased.FCI as F
src = inspect.getsource(F.getPossibleDsep)
src = src.replace("adjacentNodes = set(graph.get_adjacent_nodes(node_x))", "adjacentNodes = graph.get_adjacent_nodes(node_x)")
exec(compile(src, "getPossibleDsep", "exec"), F.__dict__)
data = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
g, _ = F.fci(data, sys.argv[2], 0.05, show_progress=False)
np.savetxt(sys.argv[3], g.graph, fmt="%d")
