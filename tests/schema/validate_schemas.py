#!/usr/bin/env python3
"""ctest `schema_validation`: the JSON Schemas in tools/docs/schema/ (draft 2020-12) against the
files the repo ships and against invalid inputs.

1. Both schemas are valid draft 2020-12 schemas.
2. Every shipped scene (scenes/*.json, scenes/bench/*.json) validates against
   impetus-scene-1.schema.json, every manifest (scenes/**/*.batch.json, tests/**/*.batch.json)
   against impetus-batch-1.schema.json.
3. The schema rejects the scene loader's schema-detectable invalid inputs: the wrong types,
   unknown keys, missing required keys and out-of-range numbers of
   tests/engine/scene_loader_test.cpp, applied to the same base scene. With --cli, `impetus
   validate` must accept the base scene and reject every one of them too (exit 2), so schema and
   loader agree on each case.

usage: validate_schemas.py REPO [--cli IMPETUS] [--work DIR]
Needs Python's jsonschema (Debian: python3-jsonschema, installed by tools/setup.sh).
"""
import argparse
import copy
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema

TETRA_OBJ = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"

# scene_loader_test.cpp's base_scene().
BASE_SCENE = {
    "format": "impetus-scene/1",
    "name": "base",
    "settings": {"dt": 0.01, "steps": 10},
    "materials": {"rubber": {"density": 1100, "friction": 0.9, "restitution": 0.6}},
    "bodies": [
        {"name": "ground", "motion": "static",
         "shape": {"type": "plane", "normal": [0, 0, 2], "offset": 0}},
        {"name": "ball", "shape": {"type": "sphere", "radius": 0.25}, "position": [0, 0, 2],
         "material": "rubber"},
        {"name": "crate", "shape": {"type": "box", "half_extents": [0.2, 0.2, 0.2]},
         "position": [1, 0, 1]},
        {"name": "tetra", "shape": {"type": "mesh", "mesh": "meshes/tetra.obj"},
         "position": [3, 0, 1]},
    ],
    "arrays": [
        {"name": "pill", "count": [2, 1, 1], "spacing": [1, 1, 1],
         "body": {"shape": {"type": "box", "half_extents": [0.1, 0.1, 0.1]}}},
    ],
    "joints": [
        {"type": "hinge", "bodies": ["ball", "crate"], "axis": [2, 0, 0], "limits": [-1, 1]},
        {"type": "ball", "bodies": ["ball", "world"], "anchor": [0, 0, 3]},
    ],
    "cloths": [
        {"name": "sheet", "grid": {"size": [1, 1], "resolution": [4, 4]}, "pin": [0, 24],
         "attach": [{"vertex": 4, "body": "crate"}]},
    ],
    "output": {"every": 2},
}


def setter(path, value):
    """A mutation that sets scene[path...] = value."""
    def apply(scene):
        target = scene
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return apply


def deleter(path):
    def apply(scene):
        target = scene
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return apply


def both(*mutations):
    def apply(scene):
        for m in mutations:
            m(scene)
    return apply


# (what, mutation): the schema-detectable cases of scene_loader_test.cpp, by its test name.
INVALID_SCENES = [
    # UnknownKey*
    ("unknown key at top level", setter(["colour"], "red")),
    ("unknown key in settings", setter(["settings", "dtt"], 0.1)),
    ("unknown key in material", setter(["materials", "rubber", "desnity"], 1)),
    ("unknown key in body", setter(["bodies", 2, "velocity"], [0, 0, 0])),
    ("unknown key in shape, by type", setter(["bodies", 2, "shape", "radius"], 0.1)),
    ("unknown key in array", setter(["arrays", 0, "spacin"], [1, 1, 1])),
    ("name in an array's body", setter(["arrays", 0, "body", "name"], "x")),
    ("position in an array's body", setter(["arrays", 0, "body", "position"], [0, 0, 0])),
    ("unknown key in joint", setter(["joints", 0, "axes"], [1, 0, 0])),
    ("limits on a ball joint", setter(["joints", 1, "limits"], [0, 1])),
    ("unknown key in cloth", setter(["cloths", 0, "stifness"], 1)),
    ("unknown key in cloth grid", setter(["cloths", 0, "grid", "centre"], [0, 0, 0])),
    ("unknown key in cloth attach", setter(["cloths", 0, "attach", 0, "bodyy"], "crate")),
    ("unknown key in output", setter(["output", "each"], 3)),
    # WrongJsonType
    ("radius is a string", setter(["bodies", 1, "shape", "radius"], "big")),
    ("ccd is a number", setter(["settings", "ccd"], 1)),
    ("bodies is an object", setter(["bodies"], {})),
    ("array count not integral", setter(["arrays", 0, "count"], [2, 1.5, 1])),
    ("position with 2 elements", setter(["bodies", 1, "position"], [0, 0])),
    # NonPositiveSize, NonPositiveDt
    ("negative radius", setter(["bodies", 1, "shape", "radius"], -1)),
    ("zero half extent", setter(["arrays", 0, "body", "shape", "half_extents"], [0.1, 0, 0.1])),
    ("zero mass", setter(["bodies", 2, "mass"], 0)),
    ("zero cloth size", setter(["cloths", 0, "grid", "size"], [0, 1])),
    ("zero array count", setter(["arrays", 0, "count"], [2, 1, 0])),
    ("zero dt", setter(["settings", "dt"], 0)),
    ("negative dt", setter(["settings", "dt"], -0.01)),
    # DurationAndStepsBothOrNeither
    ("both duration and steps", setter(["settings", "duration"], 1.0)),
    ("neither duration nor steps", deleter(["settings", "steps"])),
    # OtherRangeChecks
    ("negative friction", setter(["materials", "rubber", "friction"], -0.1)),
    ("restitution above 1", setter(["materials", "rubber", "restitution"], 1.5)),
    ("zero substeps", setter(["settings", "substeps"], 0)),
    ("negative threads", setter(["settings", "threads"], -1)),
    ("negative seed", setter(["settings", "seed"], -1)),
    ("unknown solver", setter(["settings", "solver"], "magic")),
    ("negative jitter", setter(["arrays", 0, "jitter"], -1)),
    ("zero output.every", setter(["output", "every"], 0)),
    ("wrong format", setter(["format"], "impetus-scene/2")),
    ("unknown motion", setter(["bodies", 1, "motion"], "flying")),
    ("unknown shape type", setter(["bodies", 1, "shape", "type"], "cube")),
    ("missing radius", deleter(["bodies", 1, "shape", "radius"])),
    # DuplicateOrReservedBodyName (the reserved name), OtherJointErrors, PlaneNotStatic
    ("body named world", setter(["bodies", 2, "name"], "world")),
    ("hinge without axis", deleter(["joints", 0, "axis"])),
    ("unknown joint type", setter(["joints", 0, "type"], "weld")),
    ("dynamic plane", deleter(["bodies", 0, "motion"])),
    ("kinematic plane", setter(["bodies", 0, "motion"], "kinematic")),
    # Missing required keys elsewhere
    ("missing settings", deleter(["settings"])),
    ("missing dt", deleter(["settings", "dt"])),
    ("body without name", deleter(["bodies", 1, "name"])),
    ("body without shape", deleter(["bodies", 1, "shape"])),
    ("cloth with grid and mesh", setter(["cloths", 0, "mesh"], "sheet.obj")),
    # FilterAndSensorErrors
    ("negative filter mask", setter(["bodies", 1, "filter"], {"mask": -1})),
    ("fractional filter category", setter(["bodies", 1, "filter"], {"category": 1.5})),
    ("filter mask above 2^64 - 1", setter(["bodies", 1, "filter"], {"mask": 18446744073709551616})),
    ("filter mask a decimal string", setter(["bodies", 1, "filter"], {"mask": "12"})),
    ("filter mask of 17 hex digits", setter(["bodies", 1, "filter"], {"mask": "0x1" + "0" * 16})),
    ("filter group above 2^31 - 1", setter(["bodies", 1, "filter"], {"group": 2147483648})),
    ("unknown key in filter", setter(["bodies", 1, "filter"], {"categories": 1})),
    ("filter not an object", setter(["bodies", 1, "filter"], 3)),
    ("is_sensor a string", setter(["bodies", 1, "is_sensor"], "yes")),
    ("is_sensor a string in an array's body", setter(["arrays", 0, "body", "is_sensor"], "no")),
]

# (what, mutation): valid uses of the extension keys, accepted by both.
VALID_SCENES = [
    ("filter with integers and a group", setter(["bodies", 1, "filter"],
                                                {"category": 2, "mask": 18446744073709551615, "group": -3})),
    ("filter with hex strings", setter(["bodies", 2, "filter"], {"category": "0x4", "mask": "0xFFFF0000ffff0000"})),
    ("sensors", both(setter(["bodies", 3, "is_sensor"], True),
                     setter(["arrays", 0, "body", "is_sensor"], False),
                     setter(["arrays", 0, "body", "filter"], {"group": 1}))),
]


def load(path):
    return json.loads(Path(path).read_text())


def validator(schema_path):
    schema = load(schema_path)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def first_error(v, doc):
    errors = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    e = errors[0]
    return "/".join(str(p) for p in e.absolute_path) + ": " + e.message[:160]


def loader_exit(cli, scene, work, name):
    path = work / f"{name}.json"
    path.write_text(json.dumps(scene))
    return subprocess.run([cli, "validate", str(path), "--quiet"], capture_output=True).returncode


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("repo")
    parser.add_argument("--cli")
    parser.add_argument("--work")
    args = parser.parse_args()
    repo = Path(args.repo)
    scene_v = validator(repo / "tools/docs/schema/impetus-scene-1.schema.json")
    batch_v = validator(repo / "tools/docs/schema/impetus-batch-1.schema.json")
    failures = []

    scenes = sorted(repo.glob("scenes/*.json")) + sorted(repo.glob("scenes/bench/*.json"))
    manifests = sorted(repo.glob("scenes/**/*.batch.json")) + sorted(repo.glob("tests/**/*.batch.json"))
    if len(scenes) < 10 or not manifests:
        failures.append(f"expected the shipped scenes and manifests, found {len(scenes)} and {len(manifests)}")
    for path in scenes:
        error = first_error(scene_v, load(path))
        if error:
            failures.append(f"{path.relative_to(repo)} does not validate: {error}")
    for path in manifests:
        error = first_error(batch_v, load(path))
        if error:
            failures.append(f"{path.relative_to(repo)} does not validate: {error}")
    print(f"valid: {len(scenes)} scenes, {len(manifests)} manifests")

    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="impetus_schema_"))
    (work / "meshes").mkdir(parents=True, exist_ok=True)
    (work / "meshes/tetra.obj").write_text(TETRA_OBJ)
    error = first_error(scene_v, BASE_SCENE)
    if error:
        failures.append(f"the base scene does not validate: {error}")
    if args.cli and loader_exit(args.cli, BASE_SCENE, work, "base") != 0:
        failures.append("impetus validate rejects the base scene")
    for i, (what, mutate) in enumerate(VALID_SCENES):
        scene = copy.deepcopy(BASE_SCENE)
        mutate(scene)
        error = first_error(scene_v, scene)
        if error:
            failures.append(f"schema rejects a valid scene ({what}): {error}")
        if args.cli and loader_exit(args.cli, scene, work, f"valid_{i}") != 0:
            failures.append(f"impetus validate rejects a valid scene: {what}")
    for i, (what, mutate) in enumerate(INVALID_SCENES):
        scene = copy.deepcopy(BASE_SCENE)
        mutate(scene)
        if scene_v.is_valid(scene):
            failures.append(f"schema accepts an invalid scene: {what}")
        if args.cli:
            code = loader_exit(args.cli, scene, work, f"invalid_{i}")
            if code != 2:
                failures.append(f"impetus validate exits {code}, not 2, on: {what}")
    print(f"rejected: {len(INVALID_SCENES)} invalid scenes" +
          (" (by the schema and by impetus validate)" if args.cli else " (by the schema)"))

    # Manifests: a few invalid ones the batch loader also rejects.
    base_manifest = {"format": "impetus-batch/1", "runs": [{"id": "a", "scene": "s.json"}]}
    bad_manifests = [
        ("unknown key", {**base_manifest, "run": []}),
        ("no runs or sweeps", {"format": "impetus-batch/1"}),
        ("bad run id", {"format": "impetus-batch/1", "runs": [{"id": "a/b", "scene": "s.json"}]}),
        ("run without scene", {"format": "impetus-batch/1", "runs": [{"id": "a"}]}),
        ("negative tol", {"format": "impetus-batch/1", "runs": [
            {"id": "a", "scene": "s.json", "checks": {"golden": {"file": "g.json", "tol": -1}}}]}),
        ("unknown check", {"format": "impetus-batch/1", "runs": [
            {"id": "a", "scene": "s.json", "checks": {"penetration": 1}}]}),
        ("bound without min or max", {"format": "impetus-batch/1", "runs": [
            {"id": "a", "scene": "s.json", "checks": {"stats": {"max_penetration": {}}}}]}),
        ("empty sweep parameter", {"format": "impetus-batch/1", "sweeps": [
            {"id": "a", "scene": "s.json", "parameters": {"seed": []}}]}),
        ("unknown override group", {"format": "impetus-batch/1", "runs": [
            {"id": "a", "scene": "s.json", "overrides": {"joints": {}}}]}),
    ]
    for what, manifest in bad_manifests:
        if batch_v.is_valid(manifest):
            failures.append(f"schema accepts an invalid manifest: {what}")
        if args.cli:
            path = work / "manifest.json"
            path.write_text(json.dumps(manifest))
            code = subprocess.run([args.cli, "batch", str(path), "--out", str(work / "out"), "--quiet"],
                                  capture_output=True).returncode
            if code != 2:
                failures.append(f"impetus batch exits {code}, not 2, on the manifest with: {what}")
    print(f"rejected: {len(bad_manifests)} invalid manifests")

    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
