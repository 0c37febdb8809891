"""Data-parallel linear regression with parameter servers, Python standard library only.

    python3 task.py [--steps 150] [--learning-rate 0.1] [--examples 6000] [--features 8]
                    [--seed 1] [--log-every 10] [--job-dir DIR]

Which replica this is comes from TF_CONFIG (as AI Platform Training and trainyard set it):
  * ps i: holds a contiguous block of the parameters (the weights, then the bias) and applies
    synchronous SGD: once every trainer pushed its gradient for a step, it subtracts the learning
    rate times their average (ps.py);
  * the master (TF_CONFIG "master" or "chief") and the workers are the trainers: trainer r of n
    takes every n-th example of the data set starting at r (the master is 0, worker i is i + 1),
    and each step pulls the parameters from every ps, computes the gradient of the squared error
    over its shard and pushes it (wire.py is the protocol);
  * the master also reports the loss every --log-every steps, evaluates the final model on held
    out examples, writes <job-dir>/model.json and tells the parameter servers to stop.
With no TF_CONFIG (or no ps in it), one process trains alone with the same code.

The data set is synthetic and the same on every replica (--seed): y = x . w* + b* + noise, with
x ~ N(0, 1)^features, w* uniform in [-2, 2], b* = 0.5 and noise ~ N(0, 0.1^2); so the loss
(mean squared error / 2) starts near |w*|^2 / 2 and ends near 0.005, the noise's share.
"""

import argparse
import json
import os
import random
import sys
import time

import ps
from wire import Connection

NOISE = 0.1
BIAS = 0.5


def log(message):
    print(message, flush=True)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=150)
    parser.add_argument("--learning-rate", type=float, default=0.1)
    parser.add_argument("--examples", type=int, default=6000)
    parser.add_argument("--features", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log-every", type=int, default=10)
    parser.add_argument("--connect-timeout", type=float, default=120.0)
    parser.add_argument("--job-dir", default="")
    return parser.parse_args(argv)


# --- the cluster ---------------------------------------------------------------------------------


def cluster_from_env():
    """(role, index, trainer addresses count, ps addresses) from TF_CONFIG; role "alone" when
    there is nothing to cooperate with."""
    tf_config = json.loads(os.environ.get("TF_CONFIG") or "{}")
    cluster = tf_config.get("cluster", {})
    task = tf_config.get("task", {})
    role, index = task.get("type", "master"), int(task.get("index", 0))
    if role == "chief":
        role = "master"
    primaries = cluster.get("master", []) + cluster.get("chief", [])
    trainers = len(primaries) + len(cluster.get("worker", []))
    servers = cluster.get("ps", [])
    if not servers:
        role = "alone" if role == "master" else role
    return role, index, trainers, servers


def blocks(size, parts):
    """[begin, end) of each of `parts` contiguous blocks of `size` parameters."""
    base, extra = divmod(size, parts)
    out, begin = [], 0
    for i in range(parts):
        end = begin + base + (1 if i < extra else 0)
        out.append((begin, end))
        begin = end
    return out


# --- the data and the model ----------------------------------------------------------------------


def true_weights(features, seed):
    rng = random.Random(seed)
    return [rng.uniform(-2.0, 2.0) for _ in range(features)]


def examples(count, features, seed, weights, stream=0):
    """`count` examples (x, y) of the data set `seed`; `stream` 1 is held out (other draws)."""
    rng = random.Random(seed * 1000003 + 17 + stream)
    out = []
    for _ in range(count):
        x = [rng.gauss(0.0, 1.0) for _ in range(features)]
        y = sum(w * v for w, v in zip(weights, x)) + BIAS + rng.gauss(0.0, NOISE)
        out.append((x, y))
    return out


def gradient(params, shard):
    """The sum over `shard` of the squared error's gradient (weights, then bias), and the sum of
    the squared errors."""
    weights, bias = params[:-1], params[-1]
    grad = [0.0] * len(params)
    loss_sum = 0.0
    for x, y in shard:
        error = sum(w * v for w, v in zip(weights, x)) + bias - y
        loss_sum += error * error
        for i, v in enumerate(x):
            grad[i] += error * v
        grad[-1] += error
    return grad, loss_sum


def mean_loss(params, data):
    _, loss_sum = gradient(params, data)
    return loss_sum / (2 * len(data))


# --- trainers -------------------------------------------------------------------------------------


class RemoteParameters:
    """The parameters as the parameter servers hold them, one connection per server."""

    def __init__(self, addresses, size, timeout):
        self.ranges = blocks(size, len(addresses))
        self.conns = [Connection.connect(a, timeout) for a in addresses]

    def pull(self, step):
        params, history = [], []
        for conn in self.conns:
            reply = conn.call({"op": "pull", "step": step})
            params += reply["block"]
            history = history or reply.get("history", [])
        return params, history

    def push(self, step, rank, grad, loss_sum, count):
        for i, (conn, (begin, end)) in enumerate(zip(self.conns, self.ranges)):
            message = {"op": "push", "step": step, "rank": rank, "grad": grad[begin:end],
                       "count": count}
            if i == 0:
                message["loss_sum"] = loss_sum  # ps 0 keeps the loss history
            reply = conn.call(message)
            if "error" in reply:
                raise RuntimeError(f"ps {i}: {reply['error']}")

    def shutdown(self):
        for conn in self.conns:
            conn.call({"op": "shutdown"})
            conn.close()


class LocalParameters:
    """One process training alone: a parameter server in this process."""

    def __init__(self, size, learning_rate):
        self.server = ps.ParameterServer(size, 1, learning_rate)

    def pull(self, step):
        reply = self.server.pull(step)
        return reply["block"], reply["history"]

    def push(self, step, rank, grad, loss_sum, count):
        self.server.push(step, rank, grad, loss_sum, count)

    def shutdown(self):
        pass


def local_path(job_dir):
    """Where to write: the directory trainyard passes (a gs:// job dir arrives as a local path),
    or /gcs/<bucket>/<path> for a gs:// URI given directly (Vertex AI's mount, which trainyard
    also provides inside containers)."""
    if job_dir.startswith("gs://"):
        return "/gcs/" + job_dir[len("gs://"):]
    return job_dir


def train(args, role, rank, trainers, parameters):
    weights = true_weights(args.features, args.seed)
    data = examples(args.examples, args.features, args.seed, weights)
    shard = data[rank::trainers]
    name = "master" if rank == 0 else f"worker {rank - 1}"
    log(f"{name}: trainer {rank} of {trainers}, {len(shard)} of {len(data)} examples, "
        f"{args.steps} steps")
    started = time.monotonic()
    for step in range(args.steps):
        params, history = parameters.pull(step)
        if rank == 0 and history and (len(history) - 1) % args.log_every == 0:
            # history[k]: the loss of the parameters after k updates, over every shard.
            log(f"step {len(history) - 1}: loss {history[-1]:.6f}")
        grad, loss_sum = gradient(params, shard)
        parameters.push(step, rank, grad, loss_sum, len(shard))
    if rank != 0:
        log(f"{name}: pushed {args.steps} gradients in {time.monotonic() - started:.1f} s")
        return 0

    params, history = parameters.pull(args.steps)
    history = history + [mean_loss(params, data)]  # the final parameters, every example
    held_out = examples(1000, args.features, args.seed, weights, stream=1)
    test_loss = mean_loss(params, held_out)
    error = max(abs(a - b) for a, b in zip(params, weights + [BIAS]))
    log(f"step {args.steps}: loss {history[-1]:.6f}")
    log(f"training loss {history[0]:.6f} at step 0, {history[-1]:.6f} after {args.steps} steps "
        f"({history[0] / history[-1]:.0f}x lower); held-out loss {test_loss:.6f}; largest "
        f"parameter error {error:.4f}; {time.monotonic() - started:.1f} s")
    if args.job_dir:
        out_dir = local_path(args.job_dir)
        os.makedirs(out_dir, exist_ok=True)
        model = {"weights": params[:-1], "bias": params[-1], "true_weights": weights,
                 "true_bias": BIAS, "loss_history": history, "held_out_loss": test_loss,
                 "trainers": trainers, "steps": args.steps, "learning_rate": args.learning_rate}
        path = os.path.join(out_dir, "model.json")
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(model, f, indent=1)
        os.replace(path + ".tmp", path)
        log(f"wrote {path}")
    parameters.shutdown()
    return 0


def main(argv):
    args = parse_args(argv)
    role, index, trainers, servers = cluster_from_env()
    size = args.features + 1
    if role == "ps":
        port = int(servers[index].rsplit(":", 1)[1])
        begin, end = blocks(size, len(servers))[index]
        ps.serve(port, end - begin, trainers, args.learning_rate, log)
        return 0
    if role == "evaluator":
        log("evaluator: nothing to evaluate in this example (the master reports the held-out "
            "loss)")
        return 0
    if role == "alone":
        return train(args, role, 0, 1, LocalParameters(size, args.learning_rate))
    rank = 0 if role == "master" else index + 1
    parameters = RemoteParameters(servers, size, args.connect_timeout)
    return train(args, role, rank, trainers, parameters)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
