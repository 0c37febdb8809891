"""Logistic regression on a synthetic dataset, trained data-parallel across a trainyard cluster.

Each training replica (the chief and every worker in TF_CONFIG) takes its shard of the data,
runs full-batch gradient descent, and writes its weights to <job-dir>/shards/. The chief then
waits for every worker's shard, averages the weights (one-shot model averaging), evaluates on a
held-out set and writes <job-dir>/model.json and <job-dir>/metrics.json. Parameter servers and
evaluators have nothing to do in this scheme: they report what they were given and wait until
trainyard stops them (parameter servers never exit on their own, as on AI Platform).

It needs only numpy and runs the same under `gcloud ai-platform local train`, `trainyard local
train` and `trainyard serve`.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

FEATURES = 20


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--job-dir", required=True, help="where the model and metrics go")
    parser.add_argument("--epochs", type=int, default=200)
    parser.add_argument("--learning-rate", type=float, default=0.5)
    parser.add_argument("--examples", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=7)
    return parser.parse_args()


def dataset(examples, seed):
    rng = np.random.default_rng(seed)
    true_w = rng.normal(size=FEATURES)
    x = rng.normal(size=(examples, FEATURES))
    y = (x @ true_w + 0.5 * rng.normal(size=examples) > 0).astype(np.float64)
    return x, y


def train(x, y, epochs, learning_rate):
    w = np.zeros(x.shape[1])
    for _ in range(epochs):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        w -= learning_rate * x.T @ (p - y) / len(y)
    return w


def accuracy(w, x, y):
    return float(np.mean(((x @ w) > 0) == (y > 0.5)))


def main():
    args = parse_args()
    tf_config = json.loads(os.environ.get("TF_CONFIG", "{}"))
    cluster = tf_config.get("cluster", {})
    task = tf_config.get("task", {})
    # A single replica (or gcloud local train without --distributed) has an empty task.
    role, index = task.get("type", "master" if "master" in cluster else "chief"), int(
        task.get("index", 0))
    primary = "master" if "master" in cluster else "chief"  # runtime <= 1.15 says master
    trainers = [(primary, 0)] + [("worker", i) for i in range(len(cluster.get("worker", [])))]
    print(f"{role} {index}: cluster {json.dumps(cluster)}; "
          f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')!r}", flush=True)

    if (role, index) not in trainers:
        print(f"{role} {index}: nothing to do in model averaging; waiting to be stopped")
        sys.stdout.flush()
        while True:
            time.sleep(60)

    shards_dir = os.path.join(args.job_dir, "shards")
    os.makedirs(shards_dir, exist_ok=True)
    x, y = dataset(args.examples, args.seed)
    split = int(0.8 * len(y))
    rank = trainers.index((role, index))
    shard = slice(rank, split, len(trainers))
    started = time.time()
    w = train(x[shard], y[shard], args.epochs, args.learning_rate)
    print(f"{role} {index}: trained on {len(y[shard])} examples in {time.time() - started:.2f}s, "
          f"shard accuracy {accuracy(w, x[shard], y[shard]):.3f}", flush=True)
    np.save(os.path.join(shards_dir, f"{rank}.tmp.npy"), w)
    os.replace(os.path.join(shards_dir, f"{rank}.tmp.npy"), os.path.join(shards_dir, f"{rank}.npy"))

    if rank != 0:
        return
    paths = [os.path.join(shards_dir, f"{r}.npy") for r in range(len(trainers))]
    while not all(os.path.exists(p) for p in paths):
        time.sleep(0.2)
    averaged = np.mean([np.load(p) for p in paths], axis=0)
    metrics = {"replicas": len(trainers), "test_accuracy": accuracy(averaged, x[split:], y[split:])}
    with open(os.path.join(args.job_dir, "model.json"), "w", encoding="utf-8") as f:
        json.dump({"weights": averaged.tolist()}, f)
    with open(os.path.join(args.job_dir, "metrics.json"), "w", encoding="utf-8") as f:
        json.dump(metrics, f)
    print(f"{role} {index}: averaged {len(trainers)} shards; test accuracy "
          f"{metrics['test_accuracy']:.3f}", flush=True)


if __name__ == "__main__":
    main()
