"""The length-prefixed binary protocol between the parameter servers and their clients.

Every message, request or reply, is one frame:

    frame   := magic "PSA1" | op (u8) | payload length (u32) | payload
    payload := meta length (u32) | meta (a UTF-8 JSON object) | array*
    array   := ndim (u8) | dim (u32) * ndim | values (float64, little-endian)

Integers are big-endian (network order). A client sends a request and reads one reply on the
same connection; a connection carries any number of such exchanges.
"""

import json
import struct

import numpy as np

MAGIC = b"PSA1"
HEADER = struct.Struct("!4sBI")
U32 = struct.Struct("!I")
MAX_PAYLOAD = 64 << 20

# Requests.
PULL = 1  # -> OK {version, rows, stop} [shard]
PUSH = 2  # {worker, version} [gradient] -> OK {version, stop, applied}
STATS = 3  # -> OK {version, pushes, staleness, finished, stopped_workers}
FINISH = 4  # training is over: refuse further pushes, tell clients to stop -> OK
BYE = 5  # {worker}: that worker has stopped -> OK
SHUTDOWN = 6  # exit the server -> OK
HOLD = 7  # {at}: pushes wait once the version reaches `at` (null: none wait) -> OK
# Replies.
OK = 128
ERROR = 129

OP_NAMES = {PULL: "PULL", PUSH: "PUSH", STATS: "STATS", FINISH: "FINISH", BYE: "BYE",
            SHUTDOWN: "SHUTDOWN", HOLD: "HOLD", OK: "OK", ERROR: "ERROR"}


class ProtocolError(Exception):
    """A frame that does not follow the protocol."""


def encode(op, meta=None, arrays=()):
    """The bytes of one frame."""
    meta_bytes = json.dumps(meta or {}).encode("utf-8")
    parts = [U32.pack(len(meta_bytes)), meta_bytes]
    for array in arrays:
        array = np.ascontiguousarray(array, dtype="<f8")
        parts.append(struct.pack("!B%dI" % array.ndim, array.ndim, *array.shape))
        parts.append(array.tobytes())
    payload = b"".join(parts)
    return HEADER.pack(MAGIC, op, len(payload)) + payload


def decode_payload(payload):
    """(meta, [arrays]) of a frame's payload."""
    (meta_len,) = U32.unpack_from(payload, 0)
    offset = U32.size + meta_len
    meta = json.loads(payload[U32.size:offset].decode("utf-8"))
    arrays = []
    while offset < len(payload):
        ndim = payload[offset]
        shape = struct.unpack_from("!%dI" % ndim, payload, offset + 1)
        offset += 1 + 4 * ndim
        size = 8 * int(np.prod(shape, dtype=np.int64))
        if offset + size > len(payload):
            raise ProtocolError("array of shape %s runs past the payload" % (shape,))
        arrays.append(np.frombuffer(payload, dtype="<f8", count=size // 8,
                                    offset=offset).reshape(shape).copy())
        offset += size
    return meta, arrays


def _recv_exact(sock, size):
    """Exactly `size` bytes from `sock`; ConnectionError at end of stream."""
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        n = sock.recv_into(view[got:], size - got)
        if n == 0:
            raise ConnectionError("connection closed by the peer")
        got += n
    return bytes(buffer)


def read_frame(sock):
    """(op, meta, arrays) of the next frame on `sock`."""
    magic, op, length = HEADER.unpack(_recv_exact(sock, HEADER.size))
    if magic != MAGIC:
        raise ProtocolError("bad magic %r" % magic)
    if length > MAX_PAYLOAD:
        raise ProtocolError("payload of %d bytes is too large" % length)
    meta, arrays = decode_payload(_recv_exact(sock, length))
    return op, meta, arrays


def write_frame(sock, op, meta=None, arrays=()):
    """Sends one frame on `sock`."""
    sock.sendall(encode(op, meta, arrays))
