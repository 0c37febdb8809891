"""A worker: pull W, compute a minibatch gradient on its share of the data, push it; repeat.

Worker i of n trains on every n-th training example starting at i. It never waits for the other
workers: between its pull and its push, their pushes may already have moved W (asynchronous
SGD). It stops when a parameter server answers that training is over, says BYE to every server
and exits 0.
"""

import logging

import numpy as np

from ps_async import client as client_lib, model, protocol

log = logging.getLogger(__name__)


def run(cluster, args):
    """Trains until told to stop; returns the exit status."""
    x_train, y_train, _, _ = model.load_data()
    mine = slice(cluster.index, None, len(cluster.workers))
    x, y = x_train[mine], y_train[mine]
    rng = np.random.default_rng(args.seed + 1 + cluster.index)
    params = client_lib.ShardedModel(cluster.ps, cluster.name, args.connect_timeout)
    log.info("%s: training on %d examples, minibatches of %d, through %d parameter servers %s",
             cluster.name, len(y), args.batch_size, len(cluster.ps), cluster.ps)
    pushes, losses = 0, []
    while True:
        weights, versions, stop = params.pull()
        if stop:
            break
        batch = rng.integers(0, len(y), args.batch_size)
        grad, loss = model.gradient(weights, x[batch], y[batch])
        losses.append(loss)
        if params.push(grad, versions):
            break
        pushes += 1
        if pushes % args.log_every == 0:
            log.info("%s: %d pushes, global step %d, mean minibatch loss %.4f", cluster.name,
                     pushes, versions[0], float(np.mean(losses)))
            losses = []
    params.tell_all(protocol.BYE, {"worker": cluster.name})
    params.close()
    log.info("%s: told to stop after %d pushes", cluster.name, pushes)
    return 0
