#!/usr/bin/python3
"""The flood of bench/resources: idle and slow clients without a valid token, in a process of its
own so that its work does not share an interpreter lock with the legitimate client measured.

    flood.py --port P --addresses 127.0.0.1[,127.0.0.2,...] [--idle N] [--slow-head N]
             [--slow-body N] [--interval S] [--redial S] [--server-pid PID]

Kinds of client (each bound to one of `--addresses` in turn, so loopback addresses other than
127.0.0.1 count as other clients):
  * idle: connects and sends nothing;
  * slow-head: sends a request head one byte every `--interval` s (a head that never ends);
  * slow-body: sends a whole head with a bad token and `Content-Length: 10000000`, then the body
    one byte every `--interval` s, on after the server's 401 and its half-close, until a send
    fails (the server reads at most 64 KiB of a refused body, for at most one timeout).
A connection the server closes (or refuses) is dialled again `--redial` s later, so the flood
keeps trying to hold its number of connections for as long as it runs.

Prints `ready` once every client has been dialled once, then runs until SIGTERM and prints its
counts as one JSON line: connections made, closed by the server, answers seen (401, 503), bytes
sent, the most open at once from the flood's side, and with `--server-pid` the server's open
sockets sampled every 0.1 s.
"""
import argparse
import errno
import json
import os
import random
import selectors
import signal
import socket
import sys
import time

SLOW_HEAD = (b"GET /v1/projects/p/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
             + b"a" * 4000)  # never ends: at one byte per interval, the 30 s head limit comes first
SLOW_BODY_HEAD = (b"POST /v1/projects/p/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Authorization: Bearer ty_not_a_valid_token\r\n"
                  b"Content-Type: application/json\r\n"
                  b"Content-Length: 10000000\r\n\r\n")


class Slot:
    def __init__(self, kind, address):
        self.kind = kind
        self.address = address
        self.sock = None
        self.connected = False
        self.sent = 0  # bytes of the current connection
        self.next_send = 0.0
        self.redial_at = 0.0
        self.first_bytes = b""
        self.half_closed = False  # a slow body's server has answered and shut down its side


class Flood:
    def __init__(self, args):
        self.port = args.port
        self.interval = args.interval
        self.redial = args.redial
        self.server_pid = args.server_pid
        addresses = args.addresses.split(",")
        kinds = (["idle"] * args.idle + ["slow-head"] * args.slow_head
                 + ["slow-body"] * args.slow_body)
        self.slots = [Slot(kind, addresses[i % len(addresses)]) for i, kind in enumerate(kinds)]
        self.selector = selectors.DefaultSelector()
        self.counts = {"dialled": 0, "connected": 0, "connect_failed": 0, "closed_by_server": 0,
                       "answered_401": 0, "answered_503": 0, "answered_other": 0, "bytes_sent": 0,
                       "max_open": 0}
        self.open = 0
        self.server_sockets = []

    def dial(self, slot, now):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_IP, getattr(socket, "IP_BIND_ADDRESS_NO_PORT", 24), 1)
        sock.setblocking(False)
        self.counts["dialled"] += 1
        try:
            sock.bind((slot.address, 0))
            rc = sock.connect_ex(("127.0.0.1", self.port))
        except OSError:
            rc = errno.EADDRNOTAVAIL
        if rc not in (0, errno.EINPROGRESS):
            sock.close()
            self.counts["connect_failed"] += 1
            slot.redial_at = now + self.redial
            return
        slot.sock, slot.connected, slot.sent, slot.first_bytes = sock, False, 0, b""
        slot.half_closed = False
        self.selector.register(sock, selectors.EVENT_WRITE, slot)

    def drop(self, slot, now, by_server):
        if slot.sock is None:
            return
        if not slot.half_closed:
            self.selector.unregister(slot.sock)
        slot.sock.close()
        slot.sock = None
        if slot.connected:
            self.open -= 1
            if by_server:
                self.counts["closed_by_server"] += 1
            answer = slot.first_bytes[9:12]
            key = {b"401": "answered_401", b"503": "answered_503", b"": None}.get(
                answer, "answered_other")
            if key:
                self.counts[key] += 1
        else:
            self.counts["connect_failed"] += 1
        slot.connected = False
        slot.redial_at = now + self.redial

    def on_event(self, slot, mask, now):
        if not slot.connected:
            if slot.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                self.drop(slot, now, by_server=True)
                return
            slot.connected = True
            self.open += 1
            self.counts["connected"] += 1
            self.counts["max_open"] = max(self.counts["max_open"], self.open)
            self.selector.modify(slot.sock, selectors.EVENT_READ, slot)
            if slot.kind == "slow-body":
                self.send(slot, SLOW_BODY_HEAD, now)
            slot.next_send = now + random.uniform(0, self.interval)
            return
        try:
            data = slot.sock.recv(65536)
        except OSError:
            data = b""
        if not data and slot.kind == "slow-body" and not slot.half_closed:
            # The answer came and the server shut down its side: go on trickling, as a hostile
            # client would, until a send fails (the server closed the whole connection).
            slot.half_closed = True
            self.selector.unregister(slot.sock)
        elif not data:
            self.drop(slot, now, by_server=True)
        elif len(slot.first_bytes) < 12:
            slot.first_bytes += data[:12]

    def send(self, slot, data, now):
        try:
            n = slot.sock.send(data)
        except OSError:
            self.drop(slot, now, by_server=True)
            return
        slot.sent += n
        self.counts["bytes_sent"] += n

    def trickle(self, now):
        for slot in self.slots:
            if slot.sock is None:
                if now >= slot.redial_at:
                    self.dial(slot, now)
                continue
            if not slot.connected or slot.kind == "idle" or now < slot.next_send:
                continue
            slot.next_send = now + self.interval
            if slot.kind == "slow-head":
                self.send(slot, SLOW_HEAD[slot.sent % len(SLOW_HEAD):][:1], now)
            else:
                self.send(slot, b"a", now)

    def sample_server(self):
        if not self.server_pid:
            return
        fds = f"/proc/{self.server_pid}/fd"
        count = 0
        try:
            for name in os.listdir(fds):
                try:
                    count += os.readlink(os.path.join(fds, name)).startswith("socket:")
                except OSError:
                    pass
        except OSError:
            return
        self.server_sockets.append(count)

    def run(self):
        stop = []
        signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
        now = time.monotonic()
        for slot in self.slots:
            self.dial(slot, now)
        ready_at = now + 1.0
        said_ready = False
        next_sample = now
        while not stop:
            for key, mask in self.selector.select(timeout=0.02):
                self.on_event(key.data, mask, time.monotonic())
            now = time.monotonic()
            self.trickle(now)
            if not said_ready and (now >= ready_at or self.open + self.counts["closed_by_server"]
                                   >= len(self.slots)):
                print("ready", flush=True)
                said_ready = True
            if now >= next_sample:
                self.sample_server()
                next_sample = now + 0.1
        sockets = sorted(self.server_sockets)
        self.counts.update(clients=len(self.slots), open_at_end=self.open,
                           server_sockets_max=sockets[-1] if sockets else None,
                           server_sockets_median=sockets[len(sockets) // 2] if sockets else None)
        print(json.dumps(self.counts), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--addresses", default="127.0.0.1")
    parser.add_argument("--idle", type=int, default=0)
    parser.add_argument("--slow-head", type=int, default=0)
    parser.add_argument("--slow-body", type=int, default=0)
    parser.add_argument("--interval", type=float, default=0.2)
    parser.add_argument("--redial", type=float, default=1.0)
    parser.add_argument("--server-pid", type=int, default=0)
    Flood(parser.parse_args()).run()


if __name__ == "__main__":
    sys.exit(main())
