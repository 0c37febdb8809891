// The wording of each API's JSON decoding errors, as data for base/json_reader.h: which words
// each kind of problem gets, whether null is an absent member, whether integers may come as
// strings. Pure.
#pragma once

#include "base/json_reader.h"

namespace trainyard {

// AI Platform Training's ml v1 (google.rpc field violations, proto3 JSON): the value quoted and
// the proto type named, "Invalid value at 'job.trainingInput.region' (TYPE_STRING), 3: expected
// a string"; unknown members "Invalid JSON payload received. Unknown name "x" at 'job': Cannot
// find field.". The root's name is the caller's ("job", "trainingInput").
extern const JsonDialect kMlV1JsonDialect;

// Vertex AI (google.rpc field violations, proto3 JSON) in shorter words: "Invalid value at
// 'jobSpec.workerPoolSpecs[0].replicaCount': expected an integer"; unknown members as ml v1; the
// root is "root".
extern const JsonDialect kVertexJsonDialect;

// Kubernetes' API server decoding a custom resource: Go's encoding/json type errors, "json:
// cannot unmarshal string into Go struct field ReplicaSpec.spec.tfReplicaSpecs.PS.replicas of
// type int32" (owner and type from `JsonNames`); unknown members only listed, for the caller's
// strict decoding ("strict decoding error: unknown field "spec.x"").
extern const JsonDialect kKubeJsonDialect;

// trainyard v1's own API (the sharing policy, sched/sharing_json.h): "expected a whole number,
// got "64"", the expected part the caller's own words when it names the type (`JsonNames::type`:
// "a quantity such as "256Gi""); unknown members "unknown field: expected project, accelerators,
// …", listing the names the object takes. A null member is a wrong type; integers only as JSON
// integers.
extern const JsonDialect kTrainyardJsonDialect;

// Cloud Storage's JSON API (storage v1: a bucket or object resource in a request body), in the
// words its handlers have always answered with, as GCS's error `message` (api/storage/rules.h):
// "Invalid value for labels.k: a string or null." (the expected part the caller's words when it
// names the type); unknown members "The bucket field x is not known to this server.", refused
// ones "The bucket field versioning cannot be set on this server: <why>.", the root named by the
// caller ("bucket", "object"). A null member is read, not absent (a PATCH's null clears);
// integers as numbers or decimal strings, as GCS sends int64.
extern const JsonDialect kStorageJsonDialect;

// The catalog's data files: `field "zones": expected an array`, `unknown field "x"`; a null
// member is a wrong type.
extern const JsonDialect kCatalogJsonDialect;

}  // namespace trainyard
