"""Device check (issue #17 on a real GPU): two TFJobs of one GPU each on a one-GPU machine, run by
`trainyard serve --run-as trainyard-job --containers host`. Each trainer (a host command, as the
job user) multiplies matrices on the GPU and says who it is and what it sees; the second job
must wait for the first (GPUs are exclusive)."""
import json
import os
import sys
import time

import submit  # beside this file

URL = sys.argv[1]
DATA = sys.argv[2]
TRAINER = r'''
import os, time, json
import torch
info = {"uid": os.getuid(), "gid": os.getgid(), "cvd": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "cuda": torch.cuda.is_available()}
try:
    open(os.environ["PROBE"], "rb").read(1); info["db"] = "readable"
except PermissionError:
    info["db"] = "denied"
except FileNotFoundError:
    info["db"] = "hidden"  # the job's mount namespace does not show the data dir at all
if info["cuda"]:
    info["device"] = torch.cuda.get_device_name(0)
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    torch.cuda.synchronize()
    start = time.time(); n = 50
    for _ in range(n):
        a @ b
    torch.cuda.synchronize()
    info["tflops"] = round(2 * 8192 ** 3 * n / (time.time() - start) / 1e12)
time.sleep(2)
print("GPUCHECK " + json.dumps(info), flush=True)
'''


def call(method, path, body=None):
    return submit.call(URL, method, path, body)


def tfjob(name):
    return {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
            "metadata": {"name": name, "namespace": "p"},
            "spec": {"tfReplicaSpecs": {"Worker": {
                "replicas": 1, "restartPolicy": "Never",
                "template": {"spec": {
                    "containers": [{
                    "name": "tensorflow", "image": "localhost/host:1",
                    "command": ["python3", "-c", TRAINER],
                    "env": [{"name": "PROBE", "value": DATA + "/trainyard.db"}],
                    "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}}}}


for name in ("gpu-a", "gpu-b"):
    print(name, call("POST", "apis/kubeflow.org/v1/namespaces/p/tfjobs", tfjob(name))[0],
          flush=True)
deadline = time.time() + 300
jobs = {}
while time.time() < deadline:
    jobs = {n: call("GET", "v1/projects/p/jobs/" + n)[1] for n in ("gpu_a", "gpu_b")}
    if all(j.get("state") in ("SUCCEEDED", "FAILED", "CANCELLED") for j in jobs.values()):
        break
    time.sleep(0.5)
for n, j in jobs.items():
    print(n, j.get("state"), j.get("startTime"), j.get("endTime"), j.get("errorMessage", ""),
          j.get("trainingInput", {}).get("masterType"),
          json.dumps(j.get("trainingInput", {}).get("masterConfig", {}).get("acceleratorConfig")), flush=True)
    logs = os.path.join(DATA, "jobs", "p", n, "logs")
    for root, _, files in os.walk(logs):
        for f in files:
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                print("--", f, fh.read()[-3000:], flush=True)
a, b = jobs["gpu_a"], jobs["gpu_b"]
print("EXCLUSIVE", "yes" if b.get("startTime", "") >= a.get("endTime", "~") or
      a.get("startTime", "") >= b.get("endTime", "~") else "NO", flush=True)
