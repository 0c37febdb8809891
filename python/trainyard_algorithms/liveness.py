"""Whether the other replicas of a distributed XGBoost job are still there (xgboost_dist.py).

XGBoost 1.7's collective waits for every replica at each allreduce with no limit by default, and
its tracker's handshake (collective.init) waits for every replica to arrive. A replica that dies
is noticed (its sockets close: the others' allreduce fails), but one that freezes (SIGSTOP, a
data read that never returns) would leave the others waiting for ever. The collective's own
`rabit_timeout`/`rabit_timeout_sec` (Debian's python3-xgboost 1.7.4, measured) raises "Poll
timeout" when an allreduce's sockets make no progress for that long: it covers neither the
tracker's handshake nor a replica still reading its data, and it cannot tell a frozen replica
from a slow one (a long round looks the same), so it would need a limit longer than any round.

So each replica keeps its `Progress` (its phase and a count: the bytes it has read, the rounds it
has trained) and answers it on its own cluster address (`Responder`: one line per connection,
from a thread, so a replica busy in XGBoost's C code still answers). A `Watchdog` thread looks at
the others while this replica's own progress stands still for STALL_SECONDS: a replica that
answered before and now refuses a connection has died; one whose address accepts but answers no
probe for SILENT_SECONDS while this one trains has stopped (a stopped process's kernel still
accepts the connection, but nothing writes the line; before training, SILENT_BEFORE_SECONDS, as
numpy's parse of a big file can hold the interpreter's lock that long); one still reading whose
byte count has not moved for READ_STALL_SECONDS while this one is past reading is stuck in its
read. The watchdog then fails this replica
(`on_stop`) with a message naming that replica, within about BOUND_SECONDS of the stop. A replica
that is merely slow answers, so it is never named. A replica whose address cannot be bound is
watched for nothing but silence (its address refuses from the start, like a dead one's).
"""

import socket
import threading
import time

PHASES = ('reading', 'checking', 'joining', 'training', 'done')
STALL_SECONDS = 3  # this replica's own progress standing still this long starts the look
SILENT_SECONDS = 10  # a replica that answered before and answers nothing this long has stopped
SILENT_BEFORE_SECONDS = 120  # the same before this replica trains
READ_STALL_SECONDS = 60  # a replica reading whose byte count stands still this long is stuck
PROBE_TIMEOUT_SECONDS = 2  # how long one probe waits for a replica's line
LOOK_SECONDS = 1  # between two looks
# From a stop in training to the job's FAILED: STALL_SECONDS, then SILENT_SECONDS of unanswered
# probes of PROBE_TIMEOUT_SECONDS each (about 17 s), then the server's end of the job, whose stopped
# replica ignores its SIGTERM until the stop grace runs out (measured: 30 s at a load of 10-18).
BOUND_SECONDS = 40
# From a read that stops: READ_STALL_SECONDS, after the others stand still (measured: 70 s from
# the start of a job whose worker's file never opens).
READ_BOUND_SECONDS = 75
MAGIC = 'trainyard-xgboost-dist'


class Progress:
    """This replica's phase (PHASES) and count, the time either last moved, and the tracker's
    port (the master's: the workers learn it from the master's answer)."""

    def __init__(self):
        self.phase = 0
        self.count = 0
        self.tracker_port = 0
        self.moved = time.monotonic()

    def enter(self, phase):
        self.phase = PHASES.index(phase)
        self.moved = time.monotonic()

    def step(self, amount=1):
        self.count += amount
        self.moved = time.monotonic()

    def line(self):
        return '{} {} {} {}\n'.format(MAGIC, PHASES[self.phase], self.count, self.tracker_port)

    def callback(self):
        """An XGBoost training callback that steps once a round."""
        import xgboost
        progress = self

        class Rounds(xgboost.callback.TrainingCallback):
            def after_iteration(self, model, epoch, evals_log):
                progress.step()
                return False

        return Rounds()


class Responder:
    """Answers every connection to `address` with the progress's line, from a thread; `server` is
    None when the address cannot be bound (the replica is then not watched)."""

    def __init__(self, address, progress):
        try:
            self.server = socket.create_server(address)
        except OSError:
            self.server = None
            return

        def serve():
            while True:
                try:
                    connection, _ = self.server.accept()
                except OSError:
                    return
                try:
                    connection.sendall(progress.line().encode())
                except OSError:
                    pass
                connection.close()

        threading.Thread(target=serve, daemon=True).start()

    def close(self):
        """Stops answering; shut down first, as a close alone leaves the thread's accept holding
        the socket open."""
        if self.server is None:
            return
        try:
            self.server.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.server.close()


def probe(address, timeout=PROBE_TIMEOUT_SECONDS):
    """'refused' (nothing listens: the replica is gone), None (no line in time: stopped, busy
    beyond reason or unreachable), else (phase, count, tracker port)."""
    try:
        with socket.create_connection(address, timeout=timeout) as connection:
            connection.settimeout(timeout)
            data = b''
            while not data.endswith(b'\n'):
                chunk = connection.recv(256)
                if not chunk:
                    break
                data += chunk
    except ConnectionRefusedError:
        return 'refused'
    except OSError:
        return None
    words = data.decode(errors='replace').split()
    if len(words) != 4 or words[0] != MAGIC or words[1] not in PHASES:
        return None
    return PHASES.index(words[1]), int(words[2]), int(words[3])


class Watchdog:
    """Watches `peers` ([(name, address)]) for the replica whose `progress` it is, and calls
    `on_stop(description)` ("worker 0 stopped answering …") once when one has stopped."""

    def __init__(self, progress, peers, on_stop):
        self.progress = progress
        self.peers = peers
        self.on_stop = on_stop
        self.known = set()  # the peers that have answered once
        self.silent_since = {}
        self.reading = {}  # name: (count, since) of a peer seen reading
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.stopped.set()

    def run(self):
        while not self.stopped.wait(LOOK_SECONDS):
            if self.progress.phase == PHASES.index('done'):
                return
            found = self.look(time.monotonic())
            if found and not self.stopped.is_set():
                self.on_stop(' and '.join(found))
                return

    def look(self, now):
        """The descriptions of the peers found stopped at time `now`; probes only those not yet
        known while this replica moves, and all of them while it stands still."""
        still = now - self.progress.moved >= STALL_SECONDS
        if not still:
            self.silent_since.clear()
            self.reading.clear()
        found = []
        for name, address in self.peers:
            if not still and name in self.known:
                continue
            answer = probe(address)
            if answer == 'refused' or answer is None:
                if not still:
                    continue
                if answer == 'refused':  # only a peer seen before: its address may be unbindable
                    if name in self.known:
                        found.append('the collective lost {}'.format(name))
                    continue
                # Silent: something listens there, so its responder was bound; known or not.
                since = self.silent_since.setdefault(name, now)
                training = self.progress.phase >= PHASES.index('training')
                if now - since >= (SILENT_SECONDS if training else SILENT_BEFORE_SECONDS):
                    found.append('{} stopped answering (no answer for {:.0f} s)'.format(
                        name, now - since))
                continue
            self.known.add(name)
            self.silent_since.pop(name, None)
            phase, count, _ = answer
            if not still or phase != PHASES.index('reading') or self.progress.phase <= phase:
                self.reading.pop(name, None)
                continue
            seen, since = self.reading.get(name, (None, now))
            if seen != count:
                self.reading[name] = (count, now)
            elif now - since >= READ_STALL_SECONDS:
                found.append('{} is stuck reading its data ({} bytes read, none for {:.0f} s)'
                             .format(name, count, now - since))
        return found
