"""Fit a damped spring's stiffness and damping with PyTorch, through a loss written in C.

`enzc.load` compiles spring.c; `enzc.torch.function` makes its `spring_loss` a torch
operator whose backward pass is the gradient enzc synthesized from the C code. The
script checks that gradient against central finite differences, trains for 200 Adam
steps, and exits non-zero if the gradient is off or the fit fails.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import torch

import enzc
import enzc.torch

STEPS, DT = 400, 0.02
TRUE = np.array([4.0, 0.3])  # stiffness k, damping c

lib = enzc.load(files=[Path(__file__).with_name("spring.c")])
observed = np.zeros(STEPS)
lib.simulate(TRUE, observed, STEPS, DT)  # the "measurements"

# 1. The C gradient against central finite differences at the starting point.
start = np.array([2.5, 0.05])
grad = lib.spring_loss.grad(start, observed, STEPS, DT)
h = 1e-6
fd = np.array([(lib.spring_loss(start + h * e, observed, STEPS, DT)
                - lib.spring_loss(start - h * e, observed, STEPS, DT)) / (2 * h)
               for e in np.eye(2)])
print(f"   gradient at (k, c) = ({start[0]}, {start[1]}): enzc {grad}, finite differences {fd}")
grad_ok = np.allclose(grad, fd, rtol=1e-5, atol=1e-9)

# 2. Training in PyTorch with the C loss.
loss_fn = enzc.torch.function(lib.spring_loss)
params = torch.tensor(start, requires_grad=True)
observed_t = torch.from_numpy(observed)
optimizer = torch.optim.Adam([params], lr=0.05)
first = None
for step in range(200):
    optimizer.zero_grad()
    loss = loss_fn(params, observed_t, STEPS, DT)
    first = loss.item() if first is None else first
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(f"   step {step:3d}  loss {loss.item():.3e}  k {params[0].item():.4f}  "
              f"c {params[1].item():.4f}")
final = loss_fn(params, observed_t, STEPS, DT).item()
k, c = params.detach().numpy()
print(f"   after 200 steps: loss {first:.3e} -> {final:.3e}, k {k:.4f} (true {TRUE[0]}), "
      f"c {c:.4f} (true {TRUE[1]})")
fit_ok = final < first / 100 and abs(k - TRUE[0]) < 0.05 and abs(c - TRUE[1]) < 0.05
sys.exit(0 if grad_ok and fit_ok else 1)
