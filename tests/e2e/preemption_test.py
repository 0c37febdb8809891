#!/usr/bin/python3
"""Issue #34's preemption with the real gcloud and a real checkpointing trainer.

One emulated T4 (`trainyard serve --accelerator-emulation 1`); every job is
examples/trainers/checkpointing on 1 × T4 (tests/e2e/preemption_scenario.py). A low-priority job
takes the T4; a job of priority 500 (ml v1 `trainingInput.scheduling.priority`, in gcloud's
`--config`) is submitted: the victim goes back to QUEUED, not FAILED, and its log (`gcloud
ai-platform jobs stream-logs`) names the urgent job; the urgent job runs and SUCCEEDS; the victim
runs again from its checkpoint and SUCCEEDS, having lost at most its checkpoint interval (read
from what the trainer wrote, not from times). A job labelled `trainyard-preemptible=false` is not
preempted: the urgent job waits, first in the queue, while it goes on, and runs once it is
cancelled.

Suspend and resume of a job gcloud submitted (trainyard's own verbs, `trainyard jobs suspend` and
`resume`: ml v1 has none): its trainer gets SIGTERM and no process of it is left; `gcloud
ai-platform jobs describe` shows it QUEUED without a jobPosition or startTime (ml v1 has no
suspended state) and `trainyard jobs describe` says it is suspended; a later job takes the T4
while it waits; resumed, it goes on from its checkpoint to SUCCEEDED, and its log says it was
suspended. Suspending or resuming it once ended, or an unknown job, is refused with the CLI's
error.

Usage: preemption_test.py --trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402
import preemption_scenario  # noqa: E402

TRAINYARD = None  # set by main()
EVERY = 5  # the victims' checkpoint interval, in steps


class PreemptionTest(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(gcloud_env.GCLOUD):
            raise unittest.SkipTest("gcloud is not installed")
        cls.s = preemption_scenario.Scenario(TRAINYARD, stop_grace_s=5)

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def submitted(self, job_id, priority, steps, **kwargs):
        run = self.s.submit(job_id, priority, steps, **kwargs)
        self.assertEqual(run.rc, 0, run)
        self.assertIn("Job [%s] submitted successfully." % job_id, run.err)

    def test_a_victim_requeues_resumes_from_its_checkpoint_and_succeeds(self):
        s = self.s
        # No checkpoint at SIGTERM: what the victim keeps is its last periodic checkpoint. It
        # holds one step past its second one until the urgent job has taken its GPU, so that it
        # cannot finish first however long gcloud takes to submit on a loaded machine.
        self.submitted("victim", 0, steps=60, every=EVERY, sigterm_checkpoint=False,
                       pause_at=2 * EVERY + 1)
        s.wait_for_state("victim", "RUNNING")
        s.wait("the victim past its second checkpoint", lambda: s.progress("victim") > 2 * EVERY)

        self.submitted("urgent", 500, steps=50)
        s.wait_for_state("victim", "QUEUED")
        s.release("victim")
        urgent = s.wait_for_state("urgent", "SUCCEEDED")
        self.assertNotIn("errorMessage", urgent)
        victim = s.wait_for_state("victim", "SUCCEEDED")
        self.assertIn("QUEUED", s.seen["victim"][s.seen["victim"].index("RUNNING"):], s.seen)
        self.assertNotIn("FAILED", s.seen["victim"])
        self.assertNotIn("errorMessage", victim)

        # Its history names the preempting job.
        logs = s.gcloud("ai-platform", "jobs", "stream-logs", "victim", "--polling-interval=1")
        self.assertEqual(logs.rc, 0, logs)
        self.assertIn("The job was preempted by job p/urgent, of higher priority (500 over 0)",
                      logs.out + logs.err)

        # The trainer's own account: two starts, the second from a checkpoint, losing at most
        # the interval; the urgent trainer ran while the victim was stopped.
        starts = s.lines("victim", "starts.jsonl")
        self.assertEqual(len(starts), 2, starts)
        second = starts[1]
        self.assertGreaterEqual(second["resumed_from"], 2 * EVERY, starts)
        self.assertEqual(second["resumed_from"] % EVERY, 0, starts)
        lost = second["reached_before"] - second["resumed_from"]
        self.assertGreaterEqual(lost, 0, starts)
        self.assertLessEqual(lost, EVERY, starts)
        self.assertEqual(len(s.lines("victim", "stops.jsonl")), 1)
        self.assertEqual(s.progress("victim"), 60)
        urgent_start = s.lines("urgent", "starts.jsonl")[0]["time"]
        self.assertLess(s.lines("victim", "stops.jsonl")[0]["time"], urgent_start)
        self.assertLess(urgent_start, second["time"])

    def test_a_job_that_opted_out_is_not_preempted(self):
        s = self.s
        # Longer than the test: it ends by cancel, once the urgent job has had every chance.
        self.submitted("keeper", 0, steps=3000, labels={"trainyard-preemptible": "false"})
        s.wait_for_state("keeper", "RUNNING")
        s.wait("the keeper's first steps", lambda: s.progress("keeper") >= 3)

        self.submitted("urgent_too", 500, steps=3)
        # Ordered first in the queue: the pass that would have preempted has run.
        queued = s.wait("urgent_too queued first",
                        lambda: (lambda job: job if job.get("jobPosition") == "1" else None)(
                            s.describe("urgent_too")))
        self.assertEqual(queued["state"], "QUEUED")
        # The keeper goes on (20 more steps) without a SIGTERM.
        went_on = s.progress("keeper") + 20
        s.wait("the keeper going on or stopped",
               lambda: s.progress("keeper") >= went_on or s.lines("keeper", "stops.jsonl"))
        self.assertEqual(s.lines("keeper", "stops.jsonl"), [])
        self.assertEqual(s.describe("keeper")["state"], "RUNNING")
        self.assertEqual(s.describe("urgent_too")["state"], "QUEUED")

        run = s.gcloud("ai-platform", "jobs", "cancel", "keeper")
        self.assertEqual(run.rc, 0, run)
        s.wait_for_state("keeper", "CANCELLED")
        s.wait_for_state("urgent_too", "SUCCEEDED")
        self.assertNotIn("QUEUED", s.seen["keeper"][s.seen["keeper"].index("RUNNING"):], s.seen)
        self.assertEqual(len(s.lines("keeper", "starts.jsonl")), 1)
    def test_suspend_stops_a_gcloud_job_and_resume_runs_it_on_from_its_checkpoint(self):
        s = self.s
        # Held at its second checkpoint (no checkpoint at SIGTERM: it resumes from that one).
        self.submitted("paused", 0, steps=3 * EVERY, every=EVERY, sigterm_checkpoint=False,
                       pause_at=2 * EVERY)
        s.wait_for_state("paused", "RUNNING")
        s.wait("paused at its step", lambda: s.progress("paused") == 2 * EVERY)
        trainer = os.path.join(s.data, "buckets", preemption_scenario.BUCKET, "paused") + " "
        self.assertNotEqual(gcloud_env.marked_processes(trainer), [])

        run = s.trainyard("jobs", "suspend", "paused")
        self.assertEqual(run.rc, 0, run)
        self.assertEqual(run.err, "Suspended job [paused]: its replicas are being stopped, then "
                                  "it waits in the queue until `trainyard jobs resume paused`.\n")
        s.wait_for_state("paused", "QUEUED")
        # What gcloud shows: QUEUED (ml v1 has no suspended state), out of the queue's
        # positions (no jobPosition), its start forgotten; the trainyard CLI says why.
        described = s.gcloud("ai-platform", "jobs", "describe", "paused")
        self.assertEqual(described.rc, 0, described)
        self.assertIn("\nstate: QUEUED\n", described.out)
        for absent in ("jobPosition", "startTime", "errorMessage"):
            self.assertNotIn(absent, described.out)
        shown = s.trainyard("jobs", "describe", "paused")
        self.assertEqual(shown.rc, 0, shown)
        self.assertIn("\nJob [paused] is suspended: it waits in the queue until `trainyard jobs "
                      "resume paused`.\n", shown.err)
        # Its replicas really stopped: the trainer got its SIGTERM and no process of it is left.
        self.assertEqual([stop["step"] for stop in s.lines("paused", "stops.jsonl")], [2 * EVERY])
        self.assertEqual(gcloud_env.marked_processes(trainer), [])

        # Not placed while suspended: a later job of the same priority takes the T4 and ends.
        self.submitted("meanwhile", 0, steps=3)
        s.wait_for_state("meanwhile", "SUCCEEDED")
        self.assertEqual(s.describe("paused")["state"], "QUEUED")
        self.assertEqual(len(s.lines("paused", "starts.jsonl")), 1)

        s.release("paused")
        run = s.trainyard("jobs", "resume", "paused")
        self.assertEqual(run.rc, 0, run)
        self.assertEqual(run.err, "Resumed job [paused]: it starts when there is room for it.\n")
        done = s.wait_for_state("paused", "SUCCEEDED")
        self.assertNotIn("errorMessage", done)
        self.assertNotIn("FAILED", s.seen["paused"])
        starts = s.lines("paused", "starts.jsonl")
        self.assertEqual([start["resumed_from"] for start in starts], [0, 2 * EVERY], starts)
        self.assertEqual(s.progress("paused"), 3 * EVERY)
        logs = s.gcloud("ai-platform", "jobs", "stream-logs", "paused", "--polling-interval=1")
        self.assertEqual(logs.rc, 0, logs)
        self.assertIn("The job was suspended: its replicas are stopped, and it waits in the queue.",
                      logs.out + logs.err)

        # Refusals, in the CLI's words; nothing changes.
        for verb, word in (("suspend", "suspended"), ("resume", "resumed")):
            run = s.trainyard("jobs", verb, "paused")
            self.assertEqual(run.rc, 1, run)
            self.assertEqual(run.err, "ERROR: (trainyard.jobs.%s) FAILED_PRECONDITION: Job paused "
                                      "is SUCCEEDED: only a job that has not ended can be %s.\n"
                             % (verb, word))
        run = s.trainyard("jobs", "suspend", "no_such_job")
        self.assertEqual(run.rc, 1, run)
        self.assertEqual(run.err, "ERROR: (trainyard.jobs.suspend) NOT_FOUND: Field: name Error: "
                                  "The specified job was not found.\n")
        self.assertEqual(s.describe("paused")["state"], "SUCCEEDED")

if __name__ == "__main__":
    gcloud_env.main(__doc__, lambda path: globals().__setitem__("TRAINYARD", path))
