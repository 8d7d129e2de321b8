"""Run every benchmark and print its table: ``python -m benchmarks [--quick] [PART ...]``."""

from __future__ import annotations

import argparse
import importlib
import sys

from tabulate import tabulate

PARTS = ("engine", "env", "inprocess", "protocol", "tournament", "schedule", "chaos",
         "recording", "sandbox", "scale", "decision_cost", "ladder", "sprt", "hosting", "web")


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmark parts (all by default)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("parts", nargs="*", metavar="PART",
                        help=f"which parts to run: {', '.join(PARTS)} (all by default)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    options = parser.parse_args(argv)
    unknown = sorted(set(options.parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown part {unknown[0]!r} (choose from {', '.join(PARTS)})")
    for part in options.parts or PARTS:
        try:
            module = importlib.import_module(f"benchmarks.{part}")
        except ModuleNotFoundError as exc:
            print(f"{part}: not available ({exc})")
            continue
        runs = f"median of {options.repeats}" if getattr(module, "MEDIAN", True) else "one run"
        print(f"\n== {part} ({runs}) ==")
        rows = module.run(repeats=options.repeats, scale=0.05 if options.quick else 1.0)
        print(tabulate(rows, headers="keys", tablefmt="github"))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
