# Linear Gaussian data of 10 variables, two of them (L1, L2) hidden afterwards.
import numpy as np, gzip
rng = np.random.default_rng(20261128)
n = 2000
names = ["L1", "L2", "X1", "X2", "X3", "X4", "X5", "X6", "X7", "X8"]
arcs = [("L1", "X1"), ("L1", "X4"), ("L2", "X3"), ("L2", "X6"), ("X1", "X2"), ("X2", "X3"),
        ("X4", "X5"), ("X5", "X6"), ("X2", "X7"), ("X5", "X7"), ("X7", "X8")]
v = {}
for name in names:
    x = rng.normal(size=n)
    for a, b in arcs:
        if b == name:
            w = rng.uniform(0.5, 1.5) * rng.choice([-1, 1])
            x = x + w * v[a]
    v[name] = x
obs = names[2:]
with gzip.GzipFile("confounded.csv.gz", "wb", mtime=0) as f:
    f.write((",".join(obs) + "\n").encode())
    for r in range(n):
        f.write((",".join("%.6g" % v[c][r] for c in obs) + "\n").encode())
