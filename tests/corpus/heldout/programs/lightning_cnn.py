"""A small convolutional classifier (conv-BN-ReLU blocks, CIFAR-sized 32x32 images) trained with
PyTorch Lightning's Trainer as its tutorials show: a LightningModule whose training_step logs the
loss with self.log, SGD with momentum, precision="16-mixed" (Lightning wraps the step in
torch.autocast(float16) and uses a torch.amp.GradScaler), a DataLoader over a TensorDataset with
its defaults (num_workers=0, no pin_memory; Lightning moves each batch with non_blocking=True),
no logger, checkpointing or progress bar. The loop is Lightning's; a callback times each step.
STEPS steps (default 50); prints the median step time."""
import os

try:
    import lightning as L
except ImportError:  # the older package name
    import pytorch_lightning as L
import torch
from torch import nn

from step_timer import StepTimer

steps = int(os.environ.get("STEPS", "50"))
timer = StepTimer()


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.MaxPool2d(2))


class SmallCNN(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(block(3, 32), block(32, 64), block(64, 128))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10))

    def forward(self, x):
        return self.head(self.features(x))

    def training_step(self, batch, batch_idx):
        images, labels = batch
        loss = nn.functional.cross_entropy(self(images), labels)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)


class Timing(L.Callback):
    def on_train_batch_start(self, trainer, module, batch, batch_idx):
        timer.tick()


torch.manual_seed(0)
data = torch.utils.data.TensorDataset(torch.randn(128 * steps, 3, 32, 32), torch.randint(0, 10, (128 * steps,)))
loader = torch.utils.data.DataLoader(data, batch_size=128, shuffle=True)
trainer = L.Trainer(max_steps=steps, accelerator="gpu", devices=1, precision="16-mixed", logger=False,
                    enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                    callbacks=[Timing()])
trainer.fit(SmallCNN(), loader)
torch.cuda.synchronize()
timer.tick()
timer.report("lightning_cnn")
