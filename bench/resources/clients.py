"""Raw-socket HTTP clients of bench/resources: what http.client hides (a body sent while the
answer is read, the bytes a refused sender got out, a stream's close) is what is measured."""
import selectors
import socket
import time


def head(method, path, token=None, extra=()):
    lines = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1"]
    if token:
        lines.append(f"Authorization: Bearer {token}")
    lines += list(extra)
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def read_response(sock, deadline):
    """(status, body) of one answer on blocking `sock`; ConnectionError when it ends first."""
    data = b""
    while b"\r\n\r\n" not in data:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed before the answer's head")
        data += chunk
    head_bytes, body = data.split(b"\r\n\r\n", 1)
    lines = head_bytes.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    while len(body) < length:
        sock.settimeout(max(0.001, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed in the answer's body")
        body += chunk
    return status, body


def call(port, method, path, token=None, body=b"", extra=(), timeout=60, source="127.0.0.1"):
    """One request on a new connection: (status, body)."""
    extra = list(extra)
    if body or method == "POST":
        extra.append(f"Content-Length: {len(body)}")
    with socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                  source_address=(source, 0)) as sock:
        sock.sendall(head(method, path, token, extra) + body)
        return read_response(sock, time.monotonic() + timeout)


class Sender:
    """One POST whose whole body is sent whatever the server answers, reading meanwhile: records
    the body bytes the kernel took before the server cut the connection, and the answer (its
    first 64 KiB are kept; the rest is counted)."""

    def __init__(self, port, path, token, body, content_type):
        extra = [f"Content-Type: {content_type}", f"Content-Length: {len(body)}"]
        self.out = memoryview(head("POST", path, token, extra) + body)
        self.head_bytes = len(self.out) - len(body)
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setblocking(False)
        self.sent = 0
        self.received = bytearray()  # the answer's first bytes
        self.received_bytes = 0
        self.answer_bytes = None  # head + Content-Length, once the head is in
        self.error = None
        self.done = False

    @property
    def body_sent(self):
        return max(0, self.sent - self.head_bytes)

    def status(self):
        parts = bytes(self.received[:12]).split()
        return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None

    def receive(self, chunk):
        self.received_bytes += len(chunk)
        if len(self.received) < 65536:
            self.received += chunk[:65536]
        if self.answer_bytes is None and b"\r\n\r\n" in self.received:
            head_bytes = bytes(self.received).split(b"\r\n\r\n", 1)[0]
            length = 0
            for line in head_bytes.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            self.answer_bytes = len(head_bytes) + 4 + length

    def drain(self):
        """Reads what is left to read after a failed send: the answer may have come first."""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return
                self.receive(chunk)
        except OSError:
            return

    def step(self, mask):
        try:
            if mask & selectors.EVENT_WRITE and self.sent < len(self.out):
                self.sent += self.sock.send(self.out[self.sent:self.sent + (256 << 10)])
        except OSError as e:
            self.error = type(e).__name__
            self.drain()
            self.done = True
            return
        try:
            if mask & selectors.EVENT_READ:
                chunk = self.sock.recv(65536)
                if not chunk:
                    self.error = self.error or "closed by the server"
                    self.done = True
                self.receive(chunk)
        except OSError as e:
            self.error = type(e).__name__
            self.done = True
        answered = self.answer_bytes is not None and self.received_bytes >= self.answer_bytes
        if self.sent >= len(self.out) and answered:
            self.done = True


def send_all(senders, timeout=120):
    """Runs `senders` together until each is done (or `timeout`); returns the seconds taken."""
    selector = selectors.DefaultSelector()
    for sender in senders:
        selector.register(sender.sock, selectors.EVENT_READ | selectors.EVENT_WRITE, sender)
    start = time.monotonic()
    active = len(senders)
    while active and time.monotonic() - start < timeout:
        for key, mask in selector.select(timeout=0.5):
            sender = key.data
            sender.step(mask)
            if sender.done:
                selector.unregister(sender.sock)
                sender.sock.close()
                active -= 1
            elif sender.sent >= len(sender.out):
                selector.modify(sender.sock, selectors.EVENT_READ, sender)
    for sender in senders:
        if not sender.done:
            sender.error = "timed out"
            selector.unregister(sender.sock)
            sender.sock.close()
    return time.monotonic() - start


def legit_loop(port, path, token, seconds, rate, fresh, stop=None):
    """GETs `path` at `rate` a second for `seconds` (or until `stop()` is true), on one keep-alive
    connection or (`fresh`) a new one each; returns (latencies in ms, [error descriptions]). A
    request that fails or is not answered 200 within 10 s is an error (and the keep-alive
    connection is opened again)."""
    request = head("GET", path, token)
    latencies, errors = [], []
    sock = None
    start = time.monotonic()
    i = 0
    while True:
        due = start + i / rate
        now = time.monotonic()
        if due - start >= seconds or (stop is not None and stop()):
            break
        if due > now:
            time.sleep(due - now)
        i += 1
        t0 = time.monotonic()
        try:
            if sock is None:
                sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(request)
            status, _ = read_response(sock, t0 + 10)
            if status != 200:
                errors.append(f"HTTP {status}")
            else:
                latencies.append((time.monotonic() - t0) * 1000)
        except (OSError, ValueError, IndexError) as e:
            errors.append(f"{type(e).__name__}: {e}")
            if sock is not None:
                sock.close()
            sock = None
        if fresh and sock is not None:
            sock.close()
            sock = None
    if sock is not None:
        sock.close()
    return latencies, errors


def open_stream(port, path, token, timeout=10):
    """A GET of a streamed answer (a watch); returns the socket once its 200 head has arrived."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    sock.sendall(head("GET", path, token))
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"the stream closed before its head: {data!r}")
        data += chunk
    if data.split()[1] != b"200":
        raise ConnectionError(f"the stream was answered {data[:200]!r}")
    return sock, data.split(b"\r\n\r\n", 1)[1]


def wait_closed(sock, timeout):
    """The monotonic time at which the server ended `sock`'s stream (EOF, a reset, or the last
    chunk of a chunked answer), or None after `timeout`; and whether it ended with the last chunk
    (a clean end)."""
    start = time.monotonic()
    data = b""
    while time.monotonic() - start < timeout:
        sock.settimeout(max(0.001, timeout - (time.monotonic() - start)))
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        except OSError:
            return time.monotonic(), False
        data += chunk
        if not chunk or data.endswith(b"0\r\n\r\n"):
            return time.monotonic(), data.endswith(b"0\r\n\r\n")
    return None, False
