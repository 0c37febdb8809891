"""The seeds' GPU benchmark: a ResNet-50 training loop on synthetic ImageNet-shaped data, as
images per second. Run bare and as a trainyard replica (tests/gpu/resnet_check.py), the ratio of
the two is trainyard's overhead on a real GPU. Prints one line: RESNET50 {json}.

Synthetic data on the device (no input pipeline), channels-last, bf16 autocast, SGD with
momentum; cuDNN picks its kernels during the warm-up steps, which are not timed."""
import argparse
import json
import os
import time

import torch
import torchvision


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--warmup", type=int, default=15)
    parser.add_argument("--steps", type=int, default=60)
    args = parser.parse_args()

    torch.backends.cudnn.benchmark = True
    device = torch.device("cuda")
    model = torchvision.models.resnet50().to(device, memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    images = torch.randn(args.batch, 3, 224, 224, device=device).to(
        memory_format=torch.channels_last)
    labels = torch.randint(0, 1000, (args.batch,), device=device)

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_fn(model(images), labels)
        loss.backward()
        optimizer.step()

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    torch.cuda.synchronize()
    seconds = time.perf_counter() - start
    print("RESNET50 " + json.dumps({
        "images_per_s": round(args.batch * args.steps / seconds, 1),
        "seconds": round(seconds, 3), "batch": args.batch, "steps": args.steps,
        "device": torch.cuda.get_device_name(0), "torch": torch.__version__,
        "uid": os.getuid(), "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }), flush=True)


if __name__ == "__main__":
    main()
