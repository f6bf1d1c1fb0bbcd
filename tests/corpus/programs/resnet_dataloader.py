"""torchvision's ResNet-18 trained on torchvision's FakeData (random PIL images turned into
tensors by ToTensor) through a DataLoader as a first version is often written: num_workers=0
(the training process makes every batch itself) and no pin_memory. SGD with momentum, no
.item() in the loop. STEPS steps (default 30); prints the median step time."""
import os

import torch
import torchvision
import torchvision.transforms as T

from step_timer import StepTimer, maybe_profiled

steps = int(os.environ.get("STEPS", "30"))
torch.manual_seed(0)
data = torchvision.datasets.FakeData(size=100000, image_size=(3, 224, 224), num_classes=100, transform=T.ToTensor())
loader = torch.utils.data.DataLoader(data, batch_size=32, num_workers=0)
model = torchvision.models.resnet18(num_classes=100).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loss_fn = torch.nn.CrossEntropyLoss()
timer = StepTimer()
with maybe_profiled(steps) as prof:
    for step, (images, labels) in enumerate(loader):
        if step == steps:
            break
        timer.tick()
        images, labels = images.cuda(), labels.cuda()
        loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if prof is not None:
            prof.step()
    torch.cuda.synchronize()
    timer.tick()
timer.report("resnet_dataloader")
