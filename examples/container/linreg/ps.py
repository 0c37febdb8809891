"""A parameter server: holds one block of the model and applies synchronous SGD updates."""

import socket
import threading

from wire import Connection


class ParameterServer:
    """The block [begin, end) of the parameter vector (weights, then the bias last)."""

    def __init__(self, size, trainers, learning_rate):
        self.block = [0.0] * size
        self.trainers = trainers          # how many pushes make one step
        self.learning_rate = learning_rate
        self.step = 0                     # updates applied so far
        self.pending = {}                 # rank -> (gradient sum, loss sum, count) of `step`
        self.history = []                 # mean squared error / 2 of every step, all shards
        self.cond = threading.Condition()
        self.done = threading.Event()

    def pull(self, step):
        with self.cond:
            self.cond.wait_for(lambda: self.step >= step)
            return {"step": self.step, "block": list(self.block), "history": list(self.history)}

    def push(self, step, rank, grad, loss_sum, count):
        with self.cond:
            if step != self.step:
                raise ValueError(f"trainer {rank} pushed step {step} while the server is at "
                                 f"step {self.step}")
            self.pending[rank] = (grad, loss_sum, count)
            if len(self.pending) < self.trainers:
                return
            total = sum(c for _, _, c in self.pending.values())
            for i in range(len(self.block)):
                g = sum(grad[i] for grad, _, _ in self.pending.values())
                self.block[i] -= self.learning_rate * g / total
            self.history.append(sum(l for _, l, _ in self.pending.values()) / (2 * total))
            self.pending.clear()
            self.step += 1
            self.cond.notify_all()

    def serve_client(self, conn):
        try:
            while True:
                try:
                    request = conn.receive()
                except ConnectionError:
                    return
                op = request.get("op")
                if op == "pull":
                    conn.send(self.pull(request["step"]))
                elif op == "push":
                    try:
                        self.push(request["step"], request["rank"], request["grad"],
                                  request.get("loss_sum", 0.0), request["count"])
                    except (KeyError, ValueError) as error:
                        conn.send({"error": str(error)})
                        continue
                    conn.send({"ok": True})
                elif op == "shutdown":
                    conn.send({"ok": True})
                    self.done.set()
                    return
                else:
                    conn.send({"error": f"unknown op {op!r}"})
        finally:
            conn.close()


def serve(port, size, trainers, learning_rate, log):
    """Serves on every interface at `port` (the port TF_CONFIG gives this replica; replicas share
    the host's network) until the master sends shutdown."""
    server = ParameterServer(size, trainers, learning_rate)
    listener = socket.create_server(("", port), reuse_port=False, backlog=64)
    listener.settimeout(0.5)
    log(f"parameter server: {size} parameters, {trainers} trainers, listening on port {port}")
    while not server.done.is_set():
        try:
            sock, peer = listener.accept()
        except socket.timeout:
            continue
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=server.serve_client, args=(Connection(sock),),
                         daemon=True).start()
    listener.close()
    log(f"parameter server: shut down by the master after {server.step} steps")
