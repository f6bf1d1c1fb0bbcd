"""Object-detection serving whose post-processing reads every detection back one value at a time:
torchvision's fasterrcnn_mobilenet_v3_large_320_fpn (weights=None, weights_backbone=None, 91 COCO
classes; about 19 M parameters), fp32, eval mode, torch.inference_mode, with the score threshold at
0 and up to 1000 detections an image (as a service that filters later on the client). Each request
is a list of 4 synthetic 3 x 480 x 640 images already on the GPU (4 requests made once, used in
turn). The model runs (line 36: torchvision resizes to 320 on the GPU, runs the backbone, the RPN
and the box head, and post-processes per image). Then a Python loop turns the detections into
records, one detection at a time: for each image and each of its detections, box.tolist() (line
40), float(score) (line 41) and int(label) (line 42) each copy a few bytes to the host and wait for
them -- 3 x 4000 = 12,000 tiny synchronous device-to-host reads a request, while the GPU has nothing
left to do. (Copying each image's three tensors to the host once, then looping over them in Python,
is the fix.) One stream, no race. REQUESTS timed requests (default 30, after 5 warm-up ones);
prints the median request time and the number of records."""
import os

import torch
import torchvision

from step_timer import StepTimer

requests = int(os.environ.get("REQUESTS", "30"))
torch.manual_seed(0)
batch_size, per_image = 4, 1000
model = torchvision.models.detection.fasterrcnn_mobilenet_v3_large_320_fpn(
    weights=None, weights_backbone=None, num_classes=91, box_score_thresh=0.0,
    box_detections_per_img=per_image).cuda().eval()
requests_in = [[torch.rand(3, 480, 640, device="cuda") for _ in range(batch_size)] for _ in range(4)]
torch.cuda.synchronize()

timer = StepTimer(skip=5)
kept = 0
with torch.inference_mode():
    for r in range(requests + 5):
        timer.tick()
        images = requests_in[r % 4]
        detections = model(images)                                           # list of 4 dicts
        records = []
        for image_id, det in enumerate(detections):
            for box, score, label in zip(det["boxes"], det["scores"], det["labels"]):
                x1, y1, x2, y2 = box.tolist()                                # sync: 16-byte copy
                s = float(score)                                             # sync: 4-byte copy
                c = int(label)                                               # sync: 8-byte copy
                records.append({"image": image_id, "box": (x1, y1, x2, y2), "score": s, "label": c})
        kept += sum(1 for rec in records if rec["score"] > 0.01)
    timer.tick()
timer.report("fasterrcnn_detections_item_loop")
print(f"records in the last request {len(records)}; above 0.01 over all requests {kept}")
