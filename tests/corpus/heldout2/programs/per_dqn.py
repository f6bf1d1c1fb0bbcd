"""Deep Q-learning with proportional prioritized experience replay (Schaul et al.), written the way
many DQN repositories write it: the replay buffer's priorities live in a sum tree kept in a plain
Python list and walked in Python, one transition at a time. 64 vectorized toy environments (NumPy
dynamics on the CPU) act with an epsilon-greedy policy whose Q-values come from the GPU (actions
read back with .cpu()); each step the 64 new transitions are inserted, 1024 transitions are sampled
from the sum tree, their TD errors are computed on the GPU by a 3-layer MLP (Double-DQN target,
importance-sampling weights, Huber loss, Adam) and brought back with .cpu() to update the 1024
priorities in the tree; the target network follows by Polyak averaging. The GPU work of a step is
tiny (a 1024 x 64 batch through 512-wide layers). STEPS steps (default 50); prints the median step
time (each step waits for the GPU twice, at the two .cpu() calls)."""
import os

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "50"))
torch.manual_seed(0)
rng = np.random.default_rng(0)
device = torch.device("cuda")
obs_dim, n_actions, n_envs, batch, capacity = 64, 18, 64, 1024, 1 << 17
gamma, alpha, beta, eps, tau = 0.99, 0.6, 0.4, 0.05, 0.005


class SumTree:
    """Leaves capacity..2*capacity-1 hold the priorities; node i holds the sum of its children."""

    def __init__(self, priorities):
        self.capacity = len(priorities)
        self.tree = [0.0] * self.capacity + list(priorities)
        for i in range(self.capacity - 1, 0, -1):
            self.tree[i] = self.tree[2 * i] + self.tree[2 * i + 1]

    def total(self):
        return self.tree[1]

    def update(self, idx, priority):
        i = idx + self.capacity
        delta = priority - self.tree[i]
        while i >= 1:
            self.tree[i] += delta
            i //= 2

    def find(self, value):
        i = 1
        while i < self.capacity:
            left = 2 * i
            if value <= self.tree[left]:
                i = left
            else:
                value -= self.tree[left]
                i = left + 1
        return i - self.capacity


class Replay:
    def __init__(self):
        # Pre-filled with random transitions at priority 1 (as after a warm-up phase).
        self.obs = rng.standard_normal((capacity, obs_dim), dtype=np.float32)
        self.next_obs = rng.standard_normal((capacity, obs_dim), dtype=np.float32)
        self.actions = rng.integers(0, n_actions, capacity)
        self.rewards = rng.standard_normal(capacity, dtype=np.float32)
        self.tree = SumTree([1.0] * capacity)
        self.max_priority, self.pos = 1.0, 0

    def add(self, obs, action, reward, next_obs):
        self.obs[self.pos], self.next_obs[self.pos] = obs, next_obs
        self.actions[self.pos], self.rewards[self.pos] = action, reward
        self.tree.update(self.pos, self.max_priority)
        self.pos = (self.pos + 1) % capacity

    def sample(self, n):
        segment = self.tree.total() / n
        idx = [self.tree.find(segment * (k + rng.random())) for k in range(n)]
        probs = np.array([self.tree.tree[i + capacity] for i in idx]) / self.tree.total()
        weights = (capacity * probs) ** -beta
        return np.array(idx), (weights / weights.max()).astype(np.float32)

    def update_priorities(self, idx, td_errors):
        for i, err in zip(idx.tolist(), td_errors.tolist()):
            p = (abs(err) + 1e-3) ** alpha
            self.tree.update(i, p)
            self.max_priority = max(self.max_priority, p)


def q_network():
    return nn.Sequential(nn.Linear(obs_dim, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, n_actions)).to(device)


online, target = q_network(), q_network()
target.load_state_dict(online.state_dict())
optimizer = torch.optim.Adam(online.parameters(), lr=1e-4)
replay = Replay()
env_w = rng.standard_normal((obs_dim, obs_dim), dtype=np.float32) / 8
env_a = rng.standard_normal((n_actions, obs_dim), dtype=np.float32)
obs = rng.standard_normal((n_envs, obs_dim), dtype=np.float32)

timer = StepTimer()
for step in range(steps):
    timer.tick()
    with torch.no_grad():
        q = online(torch.as_tensor(obs, device=device))
    actions = q.argmax(dim=1).cpu().numpy()                       # the host waits for the GPU
    explore = rng.random(n_envs) < eps
    actions[explore] = rng.integers(0, n_actions, int(explore.sum()))
    next_obs = np.tanh(obs @ env_w + env_a[actions]).astype(np.float32)   # the environments' step
    rewards = next_obs[:, 0] - 0.01 * np.abs(next_obs).sum(axis=1)
    for e in range(n_envs):
        replay.add(obs[e], actions[e], rewards[e], next_obs[e])
    obs = next_obs
    idx, weights = replay.sample(batch)                           # 1024 walks of the sum tree in Python
    o = torch.as_tensor(replay.obs[idx], device=device)
    a = torch.as_tensor(replay.actions[idx], device=device)
    r = torch.as_tensor(replay.rewards[idx], device=device)
    o2 = torch.as_tensor(replay.next_obs[idx], device=device)
    w = torch.as_tensor(weights, device=device)
    with torch.no_grad():
        best = online(o2).argmax(dim=1, keepdim=True)
        y = r + gamma * target(o2).gather(1, best).squeeze(1)
    q_sa = online(o).gather(1, a.unsqueeze(1)).squeeze(1)
    loss = (w * F.smooth_l1_loss(q_sa, y, reduction="none")).mean()
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    with torch.no_grad():
        for p_t, p in zip(target.parameters(), online.parameters()):
            p_t.lerp_(p, tau)
    td = (q_sa.detach() - y).cpu().numpy()                        # the host waits for the GPU
    replay.update_priorities(idx, td)                             # 1024 updates of the sum tree in Python
timer.tick()
timer.report("per_dqn")
print(f"replay total priority {replay.tree.total():.1f}")
