#!/usr/bin/env python3
"""ctest bench_scene_generator: tools/scenes/make_box_pile.py follows pile_boxes_1k's layout.

The generator run with 10 10 10 must give the bodies, arrays, settings and materials of the
shared scenes/bench/pile_boxes_1k.json (numbers to 1e-9 relative; only name and description
differ), and scenes/bench/pile_boxes_10k.json must be exactly what it writes for 25 25 16.
"""
import json
import subprocess
import sys
from pathlib import Path

root = Path(sys.argv[1])
generator = root / "tools/scenes/make_box_pile.py"


def generate(*counts):
    out = subprocess.run([sys.executable, str(generator), *map(str, counts)], check=True,
                         capture_output=True, text=True)
    return out.stdout


def compare(x, y, path):
    if isinstance(x, dict):
        if set(x) != set(y):
            raise AssertionError(f"{path}: keys differ: {sorted(set(x) ^ set(y))}")
        for k in x:
            if path == "" and k in ("name", "description"):
                continue
            compare(x[k], y[k], f"{path}.{k}")
    elif isinstance(x, list):
        if len(x) != len(y):
            raise AssertionError(f"{path}: {len(x)} items vs {len(y)}")
        for i, (p, q) in enumerate(zip(x, y)):
            compare(p, q, f"{path}[{i}]")
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        if abs(x - y) > 1e-9 * max(1.0, abs(y)):
            raise AssertionError(f"{path}: {x} vs {y}")
    elif x != y:
        raise AssertionError(f"{path}: {x!r} vs {y!r}")


compare(json.loads(generate(10, 10, 10)),
        json.load(open(root / "scenes/bench/pile_boxes_1k.json")), "")
committed = (root / "scenes/bench/pile_boxes_10k.json").read_text()
if generate(25, 25, 16) != committed:
    raise SystemExit("scenes/bench/pile_boxes_10k.json is not what "
                     "`tools/scenes/make_box_pile.py 25 25 16` writes: regenerate it")
print("make_box_pile.py 10 10 10 matches pile_boxes_1k.json; pile_boxes_10k.json is up to date")
