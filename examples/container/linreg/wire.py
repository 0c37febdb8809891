"""The parameter server's wire protocol: one JSON object per line, each way, over TCP.

A trainer keeps one connection to each parameter server and sends requests in turn; every
request gets exactly one reply. Requests:

  {"op": "pull", "step": S}       wait until the server has applied S updates, then reply
                                  {"step": S', "block": [...]} (S' >= S: the parameters after S'
                                  updates) and "history" (the loss of every step so far; ps 0
                                  only, which is sent the losses)
  {"op": "push", "step": S, "rank": R, "grad": [...], "loss_sum": L, "count": N}
                                  trainer R's gradient sum over its N examples at step S (and the
                                  sum of their squared errors); the server applies the average of
                                  all trainers' gradients once every trainer pushed step S
                                  (synchronous SGD); reply {"ok": true}
  {"op": "shutdown"}              the master is done: reply {"ok": true}, then the server exits 0
"""

import json
import socket
import time


class Connection:
    """A line-oriented JSON connection (either end)."""

    def __init__(self, sock):
        self.sock = sock
        self.reader = sock.makefile("r", encoding="utf-8", newline="\n")

    @classmethod
    def connect(cls, address, timeout):
        """Connects to "host:port", retrying until `timeout` seconds have passed (the servers
        may still be starting)."""
        host, port = address.rsplit(":", 1)
        deadline = time.monotonic() + timeout
        while True:
            try:
                sock = socket.create_connection((host, int(port)), timeout=5)
                sock.settimeout(None)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return cls(sock)
            except OSError as error:
                if time.monotonic() > deadline:
                    raise ConnectionError(f"cannot reach the parameter server {address}: {error}")
                time.sleep(0.2)

    def send(self, message):
        self.sock.sendall((json.dumps(message) + "\n").encode("utf-8"))

    def receive(self):
        line = self.reader.readline()
        if not line:
            raise ConnectionError("the connection was closed")
        return json.loads(line)

    def call(self, message):
        self.send(message)
        return self.receive()

    def close(self):
        self.reader.close()
        self.sock.close()
