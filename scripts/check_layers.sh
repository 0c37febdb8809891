#!/usr/bin/env bash
# The layer and clock greps (STYLE.md §12): dependencies point one way, only base/clock.h reads
# the real clocks, and tests wait for conditions, not for time (tests/support/wait.h is the one
# place that pauses). Prints each offence and exits 1 if there is one.
set -euo pipefail
cd "$(dirname "$0")/.."

# module -> the modules its sources may include (besides itself).
declare -A allowed=(
  [base]=""
  # The OS seam (os/): spawning, running commands; only base/ below it.
  [os]="base"
  [model]="base"
  [catalog]="base"
  [algorithms]="base"
  [validate]="base model catalog algorithms tuning"
  [plan]="base model catalog algorithms"
  [tuning]="base model"
  [sched]="base os model catalog"
  [kube]="base model catalog"
  [vertex]="base model catalog tuning"
  [access]="base"
  [logs]="base os model access"
  [store]="base os model logs access"
  [run]="base os model catalog algorithms plan logs"
  [control]="base os model catalog algorithms validate plan tuning vertex sched run logs store"
  # The HTTP core (server/): connections, router, errors, /metrics; it knows no API (api/) and no
  # job machinery.
  [server]="base os model sched"
  # The API front-ends (api/{ml,vertex,kube,storage,logging,trainyard}/, and the access check,
  # audit trail and discovery documents they share) over the HTTP core: no run/ (a running job is
  # reached through control/ only), no app/, agent/ or cli/; their store includes are checked below.
  [api]="base os model catalog validate control logs store sched kube vertex access server"
  # The composition root (app/): the one module that knows every backend, and composes every API.
  [app]="base os model catalog algorithms validate plan tuning sched kube vertex access logs run store control agent server api"
  # The cluster backend and its node agent (`trainyard batch-task`).
  [agent]="base os model catalog algorithms plan sched run control"
  [cli]="base os model catalog algorithms validate control agent app store run logs sched plan tuning kube vertex access"
)
status=0
for dir in src/*/; do
  module=$(basename "$dir")
  [[ -v "allowed[$module]" ]] || { echo "check_layers: module src/$module has no rule here"; status=1; continue; }
  ok=" $module ${allowed[$module]} "
  while IFS= read -r line; do
    file=${line%%:*}
    inc=${line#*#include \"}  # the module: what comes before the first slash
    inc=${inc%%/*}
    if [[ "$ok" != *" $inc "* ]]; then
      echo "check_layers: $file includes $inc/, which $module/ may not depend on"
      status=1
    fi
  done < <(grep -rHE '^#include "[^/"]+/' "$dir" || true)
done
# The front-ends read jobs and tokens, never write them: a job changes through control/'s
# JobController only. Of store/ they include the job and token stores (held const), the job
# tokens' key, the bucket store and its preconditions (the storage API's own objects: no controller
# stands between), and the audit store (the audit trail appends the activity log).
if [[ -d src/api ]]; then
  while IFS= read -r line; do
    file=${line%%:*}
    inc=${line#*#include \"}
    inc=${inc%\"*}
    case "$inc" in
      store/job_store.h | store/token_store.h | store/job_tokens.h | store/bucket_store.h | \
        store/preconditions.h | store/audit_store.h) ;;
      *) echo "check_layers: $file includes $inc; api/ reads jobs through store/job_store.h and changes them through control/"
         status=1 ;;
    esac
  done < <(grep -rHE '^#include "store/' src/api || true)
  if grep -rnE '\b(JobStore|TokenStore)\b' src/api --include='*.cc' --include='*.h' \
      | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(//|#include)' | grep -vE 'const (store::)?(JobStore|TokenStore)\b'; then
    echo "check_layers: api/ holds the job and token stores const; a job changes through control/'s JobController"
    status=1
  fi
fi
# Pure domain modules do no IO: no files, processes, sockets or clocks.
for module in model catalog algorithms validate plan tuning kube vertex access; do
  [[ -d src/$module ]] || continue
  if grep -rnE '#include <(fstream|filesystem|thread|unistd\.h|sys/|cstdio>.*fopen)' "src/$module" \
      | grep -v '^\s*//'; then
    echo "check_layers: src/$module is pure domain code and may not do IO"
    status=1
  fi
done
# One way to start a process (os/spawn.h): posix_spawn and its file actions only in os/.
if grep -rnE '#include <spawn\.h>' src | grep -v '^src/os/'; then
  echo "check_layers: start processes through os/spawn.h; <spawn.h> belongs to os/ alone"
  status=1
fi
# The OS seam (issue #33): the system's headers only in os/ and the replica supervisor's run/;
# everything else calls an os/ function (file effects: os/dir.h, os/file_handle.h,
# os/atomic_file.h, os/file.h; processes: os/spawn.h, os/process.h).
os_headers='#include <((unistd|fcntl|spawn|dirent|pwd|grp|sched|poll|signal|pthread)\.h|(sys|linux)/[a-z_0-9/]+\.h)>'
if grep -rnE "$os_headers" src | grep -vE '^src/(os|run)/'; then
  echo "check_layers: OS headers belong to os/ (and the supervisor, run/): call an os/ function"
  status=1
fi
# The reconcile rules (control/reconcile/) are pure too: they include only pure modules (sched/'s
# placement, not its host detection) and each other, and the executor applies what they decide.
while IFS= read -r line; do
  file=${line%%:*}
  inc=${line#*#include \"}
  inc=${inc%\"*}
  case "$inc" in
    sched/host_inventory.h) echo "check_layers: $file includes $inc, which reads the machine"
       status=1 ;;
    base/* | model/* | catalog/* | algorithms/* | plan/* | sched/* | tuning/* | control/reconcile/*) ;;
    *) echo "check_layers: $file includes $inc; the reconcile rules include only pure modules"
       status=1 ;;
  esac
done < <(grep -rHE '^#include "' src/control/reconcile || true)
if grep -rnE '#include <(fstream|filesystem|thread|unistd\.h|sys/|cstdio>.*fopen)' src/control/reconcile; then
  echo "check_layers: src/control/reconcile is pure and may not do IO"
  status=1
fi
# The storage API's rules (api/storage/rules.h, its rules.cc and bucket_fields.cc) are pure too:
# the handlers decode, call them and the bucket store, and encode; the rules read only the store's
# value types and its precondition evaluation, do no IO and know no HTTP.
storage_rules=(src/api/storage/rules.h src/api/storage/rules.cc src/api/storage/bucket_fields.cc)
while IFS= read -r line; do
  file=${line%%:*}
  inc=${line#*#include \"}
  inc=${inc%\"*}
  case "$inc" in
    base/* | validate/* | store/bucket_store.h | store/preconditions.h | api/storage/rules.h) ;;
    *) echo "check_layers: $file includes $inc; the storage rules include only pure modules"
       status=1 ;;
  esac
done < <(grep -HE '^#include "' "${storage_rules[@]}" || true)
if grep -nE '#include <(fstream|filesystem|thread|unistd\.h|sys/|cstdio>.*fopen)' "${storage_rules[@]}"; then
  echo "check_layers: the storage rules are pure and may not do IO"
  status=1
fi
if grep -rnE '(system_clock|steady_clock)::now' src --include='*.cc' --include='*.h' \
    | grep -v '^src/base/clock.h:'; then
  echo "check_layers: read time through a Clock& (base/clock.h), not the real clocks"
  status=1
fi
if grep -rnE '\bsleep_(for|until)\b|\busleep *\(' tests fuzz --include='*.cc' --include='*.h' \
    | grep -v '^tests/support/wait\.cc:'; then
  echo "check_layers: tests wait for a condition (testing::WaitUntil, tests/support/wait.h), not for time"
  status=1
fi
[[ $status -eq 0 ]] && echo "check_layers: ok"
exit $status
