"""Submits one TFJob (one Worker asking for GPUs) to a trainyard server, waits for it to end and
prints its state and its replica's log: `submit.py URL DATA_DIR NAME IMAGE GPUS COMMAND...`. Used
by the device checks (standing.sh) for a container job and the ResNet-50 benchmark. Exits 0 when
the job SUCCEEDED."""
import json
import os
import sys
import time
import urllib.error
import urllib.request


def call(url, method, path, body=None):
    """One JSON call to the server at `url`: (status, decoded body)."""
    request = urllib.request.Request(url + path, method=method,
                                     data=json.dumps(body).encode() if body else None,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as reply:
            return reply.status, json.loads(reply.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def main():
    url, data, name, image, gpus = sys.argv[1:6]
    command = sys.argv[6:]
    container = {"name": "tensorflow", "image": image, "command": command,
                 "resources": {"limits": {"nvidia.com/gpu": int(gpus)}}}
    tfjob = {"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
             "metadata": {"name": name, "namespace": "p"},
             "spec": {"tfReplicaSpecs": {"Worker": {
                 "replicas": 1, "restartPolicy": "Never",
                 "template": {"spec": {"containers": [container]}}}}}}
    code, answer = call(url, "POST", "apis/kubeflow.org/v1/namespaces/p/tfjobs", tfjob)
    print("create", name, code, "" if code < 300 else json.dumps(answer), flush=True)
    job_id = name.replace("-", "_")
    deadline = time.time() + 400
    job = {}
    while time.time() < deadline:
        job = call(url, "GET", "v1/projects/p/jobs/" + job_id)[1]
        if job.get("state") in ("SUCCEEDED", "FAILED", "CANCELLED"):
            break
        time.sleep(0.5)
    print("job", job_id, job.get("state"), job.get("startTime"), job.get("endTime"),
          job.get("errorMessage", ""), job.get("trainingInput", {}).get("masterType"), flush=True)
    for root, _, files in os.walk(os.path.join(data, "jobs", "p", job_id, "logs")):
        for log_name in sorted(files):
            with open(os.path.join(root, log_name), encoding="utf-8", errors="replace") as log:
                print("--", log_name, log.read()[-4000:], flush=True)
    sys.exit(0 if job.get("state") == "SUCCEEDED" else 1)


if __name__ == "__main__":
    main()
