"""A small MLP trained with PyTorch Lightning's Trainer on a TensorDataset, as its tutorial
shows: training_step logs the loss with self.log, Adam, no logger or progress bar. The loop is
Lightning's; a callback times each step. STEPS steps (default 60); prints the median."""
import os

try:
    import lightning as L
except ImportError:  # the older package name
    import pytorch_lightning as L
import torch

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "60"))
timer = StepTimer()


class Net(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(1024, 1024), torch.nn.ReLU(), torch.nn.Linear(1024, 1024),
                                       torch.nn.ReLU(), torch.nn.Linear(1024, 10))

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        self.log("loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


class Timing(L.Callback):
    def on_train_batch_start(self, trainer, module, batch, batch_idx):
        timer.tick()


torch.manual_seed(0)
data = torch.utils.data.TensorDataset(torch.randn(64 * steps, 1024), torch.randint(0, 10, (64 * steps,)))
loader = torch.utils.data.DataLoader(data, batch_size=64)
trainer = L.Trainer(max_steps=steps, accelerator="gpu", devices=1, logger=False, enable_checkpointing=False,
                    enable_progress_bar=False, enable_model_summary=False, callbacks=[Timing()])
trainer.fit(Net(), loader)
torch.cuda.synchronize()
timer.tick()
timer.report("lightning_train")
