"""The client side: a connection to each parameter server, and the model seen through all of them.

Parameter servers may start after their clients (trainyard starts the replicas together, in no
promised order), so connecting retries until `connect_timeout` seconds have passed. A connection
that breaks mid-run is opened again the same way and the request sent once more.
"""

import logging
import socket
import time

import numpy as np

from ps_async import cluster as cluster_lib, protocol

log = logging.getLogger(__name__)


class ServerError(Exception):
    """A parameter server answered ERROR."""


class Connection:
    """A request/reply connection to one parameter server."""

    def __init__(self, address, client_name, connect_timeout):
        self.address = address
        self._client_name = client_name
        self._connect_timeout = connect_timeout
        self._sock = None

    def _connect(self):
        host, port = cluster_lib.split_address(self.address)
        deadline = time.monotonic() + self._connect_timeout
        delay, attempts = 0.05, 0
        while True:
            try:
                self._sock = socket.create_connection((host, port), timeout=30)
                self._sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if attempts:
                    log.info("%s: connected to %s after %d retries", self._client_name,
                             self.address, attempts)
                return
            except OSError as error:
                if time.monotonic() + delay > deadline:
                    raise ConnectionError("%s: cannot reach the parameter server at %s: %s"
                                          % (self._client_name, self.address, error)) from error
                if attempts == 0:
                    log.info("%s: %s not up yet (%s); retrying", self._client_name, self.address,
                             error)
                attempts += 1
                time.sleep(delay)
                delay = min(1.0, delay * 2)

    def call(self, op, meta=None, arrays=()):
        """(meta, arrays) of the OK reply to one request; reconnects once if the link broke."""
        for attempt in (0, 1):
            if self._sock is None:
                self._connect()
            try:
                protocol.write_frame(self._sock, op, meta, arrays)
                reply, reply_meta, reply_arrays = protocol.read_frame(self._sock)
                break
            except OSError:
                self.close()
                if attempt:
                    raise
        if reply != protocol.OK:
            raise ServerError("%s answered %s to %s: %s" % (
                self.address, protocol.OP_NAMES.get(reply, reply), protocol.OP_NAMES[op],
                reply_meta.get("error")))
        return reply_meta, reply_arrays

    def close(self):
        """Closes the socket (the next call reconnects)."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None


class ShardedModel:
    """W as the concatenation of the parameter servers' blocks, server 0's rows first."""

    def __init__(self, addresses, client_name, connect_timeout):
        self.name = client_name
        self._servers = [Connection(a, client_name, connect_timeout) for a in addresses]
        self._rows = None

    def pull(self):
        """(W, [version of each block], whether any server says training is over)."""
        blocks, versions, stop = [], [], False
        for server in self._servers:
            meta, arrays = server.call(protocol.PULL)
            blocks.append(arrays[0])
            versions.append(meta["version"])
            stop = stop or meta["stop"]
        self._rows = np.cumsum([len(b) for b in blocks])[:-1]
        return np.concatenate(blocks), versions, stop

    def push(self, grad, versions):
        """Sends each server its rows of `grad`; True when a server says training is over."""
        stop = False
        for server, block, version in zip(self._servers, np.split(grad, self._rows), versions):
            meta, _ = server.call(protocol.PUSH, {"worker": self.name, "version": version},
                                  [block])
            stop = stop or meta["stop"]
        return stop

    def hold_at(self, step):
        """Server 0 lets pushes through until the global step reaches `step` (None: always)."""
        self._servers[0].call(protocol.HOLD, {"at": step})

    def global_step(self):
        """Server 0's version: the number of pushes it has applied."""
        return self._servers[0].call(protocol.STATS)[0]["version"]

    def stats(self):
        """Every server's statistics, in index order."""
        return [server.call(protocol.STATS)[0] for server in self._servers]

    def tell_all(self, op, meta=None):
        """Sends `op` (FINISH, BYE, SHUTDOWN) to every server."""
        for server in self._servers:
            server.call(op, meta)

    def close(self):
        """Closes every connection."""
        for server in self._servers:
            server.close()
