"""Runs some GPU work, then dies with abort(): a recording must still hold the work done
before the crash."""
import os

import torch

from streamlab_example import spin, warm_up

warm_up()
s = torch.cuda.Stream()
spin(1, s)
spin(1, s)
torch.cuda.synchronize()
os.abort()
