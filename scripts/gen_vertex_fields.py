#!/usr/lib/google-cloud-sdk/platform/bundledpythonunix/bin/python3
"""Writes src/cli/data/vertex_fields.json: the accelerator types gcloud accepts in
`--worker-pool-spec` (MachineSpec's enum names starting NVIDIA or TPU, as custom_jobs/validation.py
filters them), and the field types of the aiplatform v1 messages that a
`trainyard ai custom-jobs create --config` (CustomJobSpec) or `hp-tuning-jobs create --config`
(HyperparameterTuningJob) file holds, read from the apitools messages of the installed Cloud SDK,
which gcloud itself converts those files with. The CLI types each YAML scalar by its field, as
gcloud does: int64 fields become JSON strings, int32 and double fields numbers, and so on.

Usage: scripts/gen_vertex_fields.py > src/cli/data/vertex_fields.json (run under the Cloud SDK's
bundled Python; the output is sorted, so a rerun shows only what the SDK changed).
"""

import json
import sys

SDK = "/usr/lib/google-cloud-sdk/lib"
sys.path[:0] = [SDK, SDK + "/third_party"]

from apitools.base.protorpclite import messages  # noqa: E402
from apitools.base.py import extra_types  # noqa: E402
from googlecloudsdk.generated_clients.apis.aiplatform.v1 import (  # noqa: E402
    aiplatform_v1_messages as v1)

PREFIX = "GoogleCloudAiplatformV1"
ROOTS = ["CustomJobSpec", "HyperparameterTuningJob"]
INT64 = (messages.Variant.INT64, messages.Variant.UINT64, messages.Variant.SINT64)


def short(name):
    return name[len(PREFIX):] if name.startswith(PREFIX) else name


def map_type(message_type):
    """'map' for a map of strings, 'any' for another map; None when not a map."""
    names = [f.name for f in message_type.all_fields()]
    if names != ["additionalProperties"]:
        return None
    value = message_type.field_by_name("additionalProperties").message_type.field_by_name("value")
    return "map" if isinstance(value, messages.StringField) else "any"


def field_type(field, out):
    if isinstance(field, messages.MessageField):
        target = field.message_type
        if target in (extra_types.JsonValue, extra_types.JsonObject):
            return "any"
        return map_type(target) or walk(target, out)
    if isinstance(field, messages.IntegerField):
        return "int64" if field.variant in INT64 else "int32"
    if isinstance(field, messages.FloatField):
        return "double"
    if isinstance(field, messages.BooleanField):
        return "bool"
    return "string"  # strings, enums, bytes, timestamps and durations


def walk(message_type, out):
    name = short(message_type.__name__)
    if name not in out:
        out[name] = {}
        for field in message_type.all_fields():
            out[name][field.name] = field_type(field, out) + ("[]" if field.repeated else "")
    return name


def main():
    out = {}
    for root in ROOTS:
        walk(getattr(v1, PREFIX + root), out)
    accelerators = sorted(name for name in v1.GoogleCloudAiplatformV1MachineSpec
                          .AcceleratorTypeValueValuesEnum.names()
                          if name.startswith("NVIDIA") or name.startswith("TPU"))
    lines = ['    "%s": %s' % (name, json.dumps(out[name], sort_keys=True)) for name in sorted(out)]
    print('{\n  "acceleratorTypes": %s,\n  "messages": {\n%s\n  }\n}'
          % (json.dumps(accelerators), ",\n".join(lines)))


if __name__ == "__main__":
    main()
