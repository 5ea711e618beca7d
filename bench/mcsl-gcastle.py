#!/usr/bin/python3
"""gCastle's MCSL (its PyTorch code, castle.algorithms.gradient.mcsl.torch) on a CSV file (a
header, then numbers): the model and the Adam trainer built as MCSL._mcsl builds them at
its defaults (4 x 16 LeakyReLU networks, temperature 0.2, learning rate 0.03, seed 1230),
then one sub-problem of STEPS Adam steps (Trainer.train_step) at RHO and alpha 0, the
data as learn() passes it (float64: importing castle sets torch's default type to double),
on one thread.  Prints "cpu S" (time.process_time of the steps alone) and "loss L" (the last
step's loss).

    PYTHONPATH=GCASTLE-CHECKOUT/gcastle python3 mcsl-gcastle.py FILE STEPS RHO

MCSL's computation needs no module that is missing here, so nothing is stood in for."""
import sys
import time

import numpy as np
import torch

from castle.algorithms.gradient.mcsl.torch.mcsl import set_seed
from castle.algorithms.gradient.mcsl.torch.models.masked_model import MaskedModel
from castle.algorithms.gradient.mcsl.torch.trainers.al_trainer import Trainer

torch.set_num_threads(1)
data = np.loadtxt(sys.argv[1], delimiter=",", skiprows=1)
steps = int(sys.argv[2])
rho = float(sys.argv[3])
n, d = data.shape
device = torch.device("cpu")
seed = 1230
set_seed(seed)
model = MaskedModel(model_type="nn", n_samples=n, n_nodes=d,
                    pns_mask=torch.ones([d, d], device=device), num_hidden_layers=4,
                    hidden_dim=16, l1_graph_penalty=2e-3, seed=seed, device=device)
trainer = Trainer(model=model, learning_rate=3e-2, init_rho=rho, rho_thresh=1e14,
                  h_thresh=0.25, rho_multiply=10, init_iter=2, h_tol=1e-10,
                  temperature=0.2, device=device)
x = torch.tensor(data, device=device)
t0 = time.process_time()
loss, h, w = trainer.train_step(x, steps, trainer.init_rho, 0.0, trainer.temperature)
t = time.process_time() - t0
print("cpu %.6f" % t)
print("loss %.6g" % float(loss))
