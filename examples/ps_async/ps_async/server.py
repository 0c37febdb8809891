"""A parameter server: one block of rows of W, updated asynchronously by whoever pushes.

Each connection gets its own thread. A PUSH is applied the moment it arrives (plain SGD,
W_k -= learning_rate * gradient_k), under a lock only so that the version counter and the
per-worker statistics stay exact: there is no barrier, no waiting for the other workers, and a
gradient may have been computed from weights that other pushes have changed since (its
staleness: versions applied between the pull the worker started from and this push). Server 0's
version is the job's global step, and server 0 holds the pushes that would pass the next
checkpoint's step until the master has saved it (HOLD): a checkpoint is taken at every
`--checkpoint-every` steps however the replicas happen to be scheduled.

The server runs until a client sends SHUTDOWN (the master, at the end) or it gets SIGTERM (what
trainyard sends the parameter servers when the master has finished).
"""

import logging
import socket
import socketserver
import struct
import threading


from ps_async import checkpoints, cluster as cluster_lib, model, protocol

log = logging.getLogger(__name__)


class ShardState:
    """The block of W a server holds, its version, and who pushed what."""

    def __init__(self, shard, version, learning_rate):
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._hold_at = None
        self._shard = shard
        self._version = version
        self._learning_rate = learning_rate
        self._pushes = {}
        self._staleness_sum = 0
        self._staleness_max = 0
        self._finished = False
        self._stopped = set()

    def pull(self):
        """(copy of the block, version, whether training is over)."""
        with self._lock:
            return self._shard.copy(), self._version, self._finished

    def push(self, worker, pulled_version, grad):
        """Applies `grad` unless training is over; (version, applied)."""
        if grad.shape != self._shard.shape:
            raise ValueError("gradient of shape %s for a block of shape %s"
                             % (grad.shape, self._shard.shape))
        with self._changed:
            while (self._hold_at is not None and self._version >= self._hold_at
                   and not self._finished):
                self._changed.wait(timeout=1.0)
            if self._finished:
                return self._version, False
            staleness = max(0, self._version - int(pulled_version))
            self._shard -= self._learning_rate * grad
            self._version += 1
            self._pushes[worker] = self._pushes.get(worker, 0) + 1
            self._staleness_sum += staleness
            self._staleness_max = max(self._staleness_max, staleness)
            return self._version, True

    def hold(self, at):
        """Pushes wait once the version reaches `at`; None lets every push through."""
        with self._changed:
            self._hold_at = at
            self._changed.notify_all()

    def finish(self):
        """From now on pushes are refused and every reply says stop."""
        with self._changed:
            self._finished = True
            self._changed.notify_all()

    def stopped(self, worker):
        """Records that `worker` has stopped."""
        with self._lock:
            self._stopped.add(worker)

    def stats(self):
        """What the master reports in metrics.json."""
        with self._lock:
            applied = sum(self._pushes.values())
            return {"version": self._version, "rows": list(self._shard.shape),
                    "pushes": dict(sorted(self._pushes.items())),
                    "mean_staleness": self._staleness_sum / applied if applied else 0.0,
                    "max_staleness": self._staleness_max, "finished": self._finished,
                    "stopped_workers": sorted(self._stopped)}


class _Handler(socketserver.BaseRequestHandler):
    """Serves one client connection: request, reply, until the client closes it."""

    def handle(self):
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while self._serve_one():
                pass
        except OSError:  # the client went away mid-reply
            return

    def _serve_one(self):
        """Reads one request and answers it; False at the end of the connection."""
        try:
            op, meta, arrays = protocol.read_frame(self.request)
        except (ConnectionError, protocol.ProtocolError, ValueError, struct.error):
            return False  # closed, or not speaking the protocol: drop the connection
        try:
            reply_meta, reply_arrays = self.server.dispatch(op, meta, arrays)
        except (ValueError, KeyError, IndexError, protocol.ProtocolError) as error:
            protocol.write_frame(self.request, protocol.ERROR, {"error": str(error)})
            return True
        protocol.write_frame(self.request, protocol.OK, reply_meta, reply_arrays)
        if op == protocol.SHUTDOWN:  # only once the reply is on its way
            threading.Thread(target=self.server.shutdown, daemon=True).start()
        return True


class ParameterServer(socketserver.ThreadingTCPServer):
    """A TCP server over a ShardState."""

    allow_reuse_address = True
    daemon_threads = True

    def __init__(self, port, state, name):
        super().__init__(("0.0.0.0", port), _Handler)
        self.state = state
        self.name = name

    def dispatch(self, op, meta, arrays):
        """(reply meta, reply arrays) of one request."""
        if op == protocol.PULL:
            shard, version, finished = self.state.pull()
            return {"version": version, "stop": finished}, [shard]
        if op == protocol.PUSH:
            version, applied = self.state.push(meta["worker"], meta["version"], arrays[0])
            return {"version": version, "applied": applied, "stop": not applied}, []
        if op == protocol.STATS:
            return self.state.stats(), []
        if op == protocol.FINISH:
            self.state.finish()
            log.info("%s: training finished at version %d; refusing further pushes",
                     self.name, self.state.stats()["version"])
            return {}, []
        if op == protocol.HOLD:
            self.state.hold(meta.get("at"))
            return {}, []
        if op == protocol.BYE:
            self.state.stopped(meta["worker"])
            return {}, []
        if op == protocol.SHUTDOWN:
            log.info("%s: shutdown requested by %s", self.name, meta.get("by", "a client"))
            return {}, []
        raise ValueError("unknown op %d" % op)


def _starting_point(job_dir, shards, index):
    """(block, version): zeros at version 0, or the block of the latest checkpoint of a run in
    progress (a server restarted after a crash picks up where the master last saved)."""
    saved = checkpoints.listed(job_dir)
    if saved and checkpoints.final(job_dir) is None:
        step, weights = checkpoints.load(saved[-1][1])
        start, stop = model.shard_rows(shards, index)
        log.info("ps-%d: restoring rows %d:%d from %s", index, start, stop, saved[-1][1])
        return weights[start:stop].copy(), step
    return model.initial_shard(shards, index), 0


def run(cluster, args):
    """Serves this server's block on its TF_CONFIG port until SHUTDOWN or SIGTERM."""
    _, port = cluster_lib.split_address(cluster.ps[cluster.index])
    shard, version = _starting_point(args.job_dir, len(cluster.ps), cluster.index)
    state = ShardState(shard, version, args.learning_rate)
    if cluster.index == 0:  # the global step waits at the first checkpoint from the start
        first = (version // args.checkpoint_every + 1) * args.checkpoint_every
        state.hold(first if first < args.train_steps else None)
    server = ParameterServer(port, state, cluster.name)
    start, stop = model.shard_rows(len(cluster.ps), cluster.index)
    log.info("%s: serving rows %d:%d of W %s on port %d (learning rate %g)", cluster.name, start,
             stop, (model.FEATURES, model.CLASSES), port, args.learning_rate)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
    stats = state.stats()
    log.info("%s: stopped at version %d; pushes by worker %s", cluster.name, stats["version"],
             stats["pushes"])
    return 0
