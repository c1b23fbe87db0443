#!/usr/bin/env python3
"""Writes ../evidence-falsifiers/*.json from falsifiers_a.py and falsifiers_b.py.

    python3 examples/corpus/authoring/build_falsifiers.py
"""

import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE.parent / "evidence-falsifiers"


def main():
    import falsifiers_a
    import falsifiers_b

    OUT.mkdir(exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    for make in falsifiers_a.ALL + falsifiers_b.ALL:
        make().dump(OUT)
    print(f"{OUT.relative_to(HERE.parent)}: {len(list(OUT.glob('*.json')))} scenarios")


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
