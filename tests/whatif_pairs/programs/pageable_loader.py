# torchvision's ResNet-18 fed by a DataLoader with two worker processes, as a first version is
# often written: each batch (32 images of 3x224x224, 19 MB) arrives in pageable memory, and
# `.cuda()` copies it while the host waits for the GPU to finish the step before and for the
# copy. Fixed as PyTorch's documentation advises: pin_memory=True (the loader's own thread copies
# each batch into pinned memory) and the copies non_blocking.
import torch
import torchvision

from common import FIXED, STEPS, profiled, step_range


class ReadyBatches(torch.utils.data.Dataset):
    """Batches made once: the workers only hand them over, so the loader keeps up."""

    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.images = [torch.randn(32, 3, 224, 224, generator=g) for _ in range(4)]
        self.labels = [torch.randint(0, 10, (32,), generator=g) for _ in range(4)]

    def __len__(self):
        return STEPS

    def __getitem__(self, i):
        return self.images[i % 4], self.labels[i % 4]


torch.manual_seed(0)
model = torchvision.models.resnet18(num_classes=10).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
loader = torch.utils.data.DataLoader(ReadyBatches(), batch_size=None, num_workers=2, pin_memory=FIXED,
                                     prefetch_factor=4)
with profiled() as prof:
    for step, (images, labels) in enumerate(loader):
        with step_range():
            images = images.cuda(non_blocking=FIXED)
            labels = labels.cuda(non_blocking=FIXED)
            loss = torch.nn.functional.cross_entropy(model(images), labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if step % 10 == 9:
                print(step, loss.item())
        if prof is not None:
            prof.step()
torch.cuda.synchronize()
