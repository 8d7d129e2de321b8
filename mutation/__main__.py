"""`python -m mutation [--quick] [--survivors] [--base REF] [MODULE ...]`: mutate each
listed module, run its own tests against every mutant, print its score and the mutants
that survived (and which test file killed how many: files run in the listed order).

The run happens in a copy of the working tree (tracked and untracked files, not what
git ignores), so the tree itself is never mutated and can be edited meanwhile. Modules
run one after another; Cosmic Ray runs one mutant at a time. The exit status is 1
when a module scores below the threshold in `modules.toml` or the equivalents file
names a mutant that no longer survives (a stale entry), 2 for a bad configuration.

Each module's session stays in `.mutation/`: after adding tests, `--survivors` runs
only the mutants that survived last time, as long as the module itself is unchanged
(tests only added cannot bring a killed mutant back).
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import math
import os
import random
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MODULES_FILE = HERE / "modules.toml"
EQUIVALENT_FILE = HERE / "equivalent.toml"
SESSIONS = ROOT / ".mutation"
"""The Cosmic Ray sessions of the last run, one per module (git ignores them)."""


class ConfigError(Exception):
    """A configuration that cannot be run; the message says what to fix."""


@dataclass(frozen=True, slots=True)
class Module:
    """A module to mutate and the tests that cover it: test files or node ids, in the
    order they run, and pytest options such as ``-k EXPRESSION``."""

    path: str
    tests: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Equivalent:
    """A mutant that changes nothing a caller can see: its source line before and after."""

    module: str
    operator: str
    before: str
    after: str
    reason: str


@dataclass(frozen=True, slots=True)
class Settings:
    """What `modules.toml` says besides the modules."""

    threshold: float
    operators: tuple[str, ...]
    """Patterns of the Cosmic Ray operators whose mutants are made; the others are left out."""
    modules: tuple[Module, ...]


@dataclass(slots=True)
class Mutant:
    """One mutant's outcome: where, by which operator, the lines it changed."""

    operator: str
    line: int
    before: str
    after: str
    outcome: str


@dataclass(slots=True)
class Score:
    """A module's mutants by outcome."""

    module: str
    seconds: float
    killed: int = 0
    equivalent: list[Mutant] = field(default_factory=list)
    survived: list[Mutant] = field(default_factory=list)
    errors: list[Mutant] = field(default_factory=list)
    unmade: int = 0
    """Mutants Cosmic Ray's operator failed to make (nothing was tested)."""
    annotations: int = 0
    """Survivors inside annotations, never evaluated: equivalent, and left out."""
    killers: Counter[str] = field(default_factory=Counter)
    """How many mutants each test file killed first (files run in the listed order)."""

    def interval(self) -> tuple[float, float]:
        """Wilson's 95% interval of the percentage, for a score taken on a sample."""
        counted = self.killed + len(self.survived)
        if not counted:
            return 100.0, 100.0
        z = NormalDist().inv_cdf(0.975)
        p = self.killed / counted
        centre = (p + z * z / (2 * counted)) / (1 + z * z / counted)
        half = z * math.sqrt(p * (1 - p) / counted + z * z / (4 * counted * counted)) / (
            1 + z * z / counted)
        return 100.0 * (centre - half), 100.0 * (centre + half)

    @property
    def percent(self) -> float:
        """Killed over killed plus survived; equivalent mutants are left out."""
        counted = self.killed + len(self.survived)
        return 100.0 * self.killed / counted if counted else 100.0


def load_settings(path: Path = MODULES_FILE) -> Settings:
    """The modules, their tests, the threshold and the operators left out."""
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    modules = []
    for entry in data.get("module", []):
        module = Module(entry["path"], tuple(entry["tests"]))
        for name in (module.path, *module.tests):
            test_path = name.split("::")[0]
            if "/" in test_path and not name.startswith("-") \
                    and not (ROOT / test_path).exists():
                raise ConfigError(f"{path.name}: {name} does not exist")
        modules.append(module)
    return Settings(float(data.get("threshold", 90.0)),
                    tuple(data["operators"]), tuple(modules))


def load_equivalents(path: Path = EQUIVALENT_FILE) -> list[Equivalent]:
    """The mutants written down as equivalent, each with its reason."""
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    equivalents = []
    for entry in data.get("equivalent", []):
        if not str(entry.get("reason", "")).strip():
            raise ConfigError(f"{path.name}: the equivalent mutant {entry.get('before')!r} "
                              f"→ {entry.get('after')!r} gives no reason")
        equivalents.append(Equivalent(entry["module"], entry["operator"],
                                      entry["before"].strip(), entry["after"].strip(),
                                      entry["reason"]))
    return equivalents


def changed_files(base: str) -> set[str]:
    """Files that differ from `base` (committed on this branch or not) and new files."""
    def git(*args: str) -> list[str]:
        out = subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True,
                             text=True).stdout
        return [line for line in out.splitlines() if line]
    known = subprocess.run(["git", "rev-parse", "--verify", "--quiet", base], cwd=ROOT,
                           capture_output=True)
    if known.returncode != 0:
        raise ConfigError(f"--quick compares with {base}, which git does not know here; "
                          "name another with --base")
    merge_base = git("merge-base", base, "HEAD")[0]
    return {*git("diff", "--name-only", merge_base),
            *git("ls-files", "--others", "--exclude-standard")}


def quick_selection(modules: Iterable[Module], changed: set[str]) -> list[Module]:
    """The modules whose own file or whose tests changed."""
    return [m for m in modules
            if m.path in changed or any(t.split("::")[0] in changed for t in m.tests)]


def copy_tree(destination: Path) -> None:
    """The working tree's tracked and untracked files (what git does not ignore)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if not source.is_file() and not source.is_symlink():
            continue  # deleted in the tree, not yet in the index
        target = destination / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)


def test_command(module: Module) -> str:
    """The pytest run of the module's tests: first failure ends it."""
    return shlex.join([sys.executable, "-m", "pytest", "-x", "-q", "--no-header",
                       "-p", "no:cacheprovider", "-p", "no:xdist",
                       "-p", "no:hypothesispytest", *module.tests])


def changed_lines(diff: str) -> tuple[str, str]:
    """The removed and the added lines of a unified diff, each joined and stripped."""
    body = [line for line in diff.splitlines()
            if not line.startswith(("---", "+++", "@@"))]
    before = " ".join(line[1:].strip() for line in body if line.startswith("-"))
    after = " ".join(line[1:].strip() for line in body if line.startswith("+"))
    return before, after


def session_paths(module: Module) -> tuple[Path, Path]:
    """Where a module's Cosmic Ray session is kept, and the fingerprint of what it ran."""
    stem = SESSIONS / module.path.replace("/", "_")
    return stem.with_suffix(".sqlite"), stem.with_suffix(".fingerprint")


def fingerprint(module: Module, settings: Settings, sample: int | None) -> str:
    """What a session's killed mutants depend on: the module's source, the operators and
    the sample. (Tests only added since keep them killed: `--survivors` relies on it.)"""
    source = hashlib.sha256((ROOT / module.path).read_bytes()).hexdigest()
    return f"{source} sample={sample} {' '.join(settings.operators)}"


def annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """The (line, column) spans of a module's annotations when it has
    `from __future__ import annotations` (then they are never evaluated, and a mutant
    inside one changes nothing); none otherwise."""
    tree = ast.parse(source)
    postponed = any(isinstance(node, ast.ImportFrom) and node.module == "__future__"
                    and any(alias.name == "annotations" for alias in node.names)
                    for node in tree.body)
    if not postponed:
        return []
    annotations: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            annotations.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns:
            annotations.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
    return [((a.lineno, a.col_offset), (a.end_lineno or a.lineno, a.end_col_offset or 0))
            for a in annotations]


def in_annotation(position: tuple[int, int],
                  spans: Sequence[tuple[tuple[int, int], tuple[int, int]]]) -> bool:
    """Whether the (line, column) `position` lies inside one of `spans`."""
    return any(start <= tuple(position) < end for start, end in spans)


def killer(output: str) -> str:
    """The test file whose failure killed a mutant (pytest's first FAILED or ERROR line)."""
    found = re.search(r"^(?:FAILED|ERROR) ([^:\s]+)", output, re.MULTILINE)
    return found.group(1) if found else "timeout" if output == "timeout" else "?"


def run_module(module: Module, settings: Settings, workdir: Path,
               equivalents: Sequence[Equivalent], survivors_only: bool = False,
               sample: int | None = None) -> Score:
    """Mutate `module` in the copy at `workdir` and run its tests against each mutant
    (with `survivors_only`, only the mutants that survived the last run of an unchanged
    module; with `sample`, only that many mutants drawn at random, the same every run)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    env = {**os.environ, "PYTHONPATH": str(workdir), "PYTHONDONTWRITEBYTECODE": "1"}
    command = test_command(module)
    started = time.monotonic()
    baseline = subprocess.run(shlex.split(command), cwd=workdir, env=env,
                              capture_output=True, text=True)
    baseline_seconds = time.monotonic() - started
    if baseline.returncode != 0:
        raise ConfigError(f"{module.path}: its tests fail before any mutation:\n"
                          f"{baseline.stdout[-3000:]}")
    timeout = max(20.0, 5.0 * baseline_seconds)
    session, stamp = session_paths(module)
    config = session.with_suffix(".toml")
    SESSIONS.mkdir(exist_ok=True)
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = {module.path!r}\n"
        f"timeout = {timeout:.0f}\n"
        "excluded-modules = []\n"
        f"test-command = {command!r}\n"
        "[cosmic-ray.distributor]\n"
        'name = "local"\n')
    cosmic_ray = [sys.executable, "-m", "cosmic_ray.cli"]
    current = fingerprint(module, settings, sample)
    again = survivors_only and session.exists() and stamp.exists() \
        and stamp.read_text() == current
    if again:
        with use_db(str(session), WorkDB.Mode.open) as db:
            redo = [item.job_id for item, result in db.completed_work_items
                    if result.test_outcome == "survived"]
        with sqlite3.connect(session) as connection:
            connection.executemany("DELETE FROM work_results WHERE job_id = ?",
                                   [(job,) for job in redo])
        print(f"{module.path}: the {len(redo)} survivors of its last run again, tests "
              f"{' '.join(module.tests)} take {baseline_seconds:.1f}s", flush=True)
    else:
        stamp.unlink(missing_ok=True)
        session.unlink(missing_ok=True)
        subprocess.run([*cosmic_ray, "init", str(config), str(session)], cwd=workdir,
                       env=env, check=True)
        made = re.compile("|".join(f"(?:{pattern})" for pattern in settings.operators))
        with use_db(str(session), WorkDB.Mode.open) as db:
            items = sorted(db.pending_work_items, key=lambda item: (
                str(item.mutations[0].operator_name), item.mutations[0].occurrence))
            skipped = [item.job_id for item in items
                       if not all(made.fullmatch(m.operator_name) for m in item.mutations)]
            db.set_multiple_results(skipped, WorkResult(output="operator left out",
                                                        worker_outcome=WorkerOutcome.SKIPPED))
            spans = annotation_spans((ROOT / module.path).read_text())
            annotated = [item.job_id for item in items if item.job_id not in set(skipped)
                         and in_annotation(item.mutations[0].start_pos, spans)]
            db.set_multiple_results(annotated, WorkResult(
                output="in an annotation, never evaluated",
                worker_outcome=WorkerOutcome.SKIPPED))
            skipped += annotated
            made_ids = [item.job_id for item in items if item.job_id not in set(skipped)]
            drawn = made_ids if sample is None or sample >= len(made_ids) else \
                random.Random(module.path).sample(made_ids, sample)
            db.set_multiple_results(sorted(set(made_ids) - set(drawn)), WorkResult(
                output="not in the sample", worker_outcome=WorkerOutcome.SKIPPED))
            print(f"{module.path}: {len(drawn)} of {len(made_ids)} mutants "
                  f"({len(skipped) - len(annotated)} of other operators and {len(annotated)} "
                  "in annotations left out), tests "
                  f"{' '.join(module.tests)} take {baseline_seconds:.1f}s", flush=True)
        stamp.write_text(current)
    subprocess.run([*cosmic_ray, "exec", str(config), str(session)], cwd=workdir, env=env,
                   check=True)
    score = Score(module.path, time.monotonic() - started)
    spans = annotation_spans((ROOT / module.path).read_text())
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            mutation = item.mutations[0]
            before, after = changed_lines(result.diff or "")
            mutant = Mutant(mutation.operator_name, mutation.start_pos[0], before, after,
                            str(result.test_outcome))
            if result.worker_outcome in (WorkerOutcome.NO_TEST, WorkerOutcome.EXCEPTION):
                score.unmade += 1  # Cosmic Ray could not make it (its operator failed)
            elif result.worker_outcome != WorkerOutcome.NORMAL:
                mutant.outcome = f"{result.worker_outcome}: {result.output}"
                score.errors.append(mutant)
            elif result.test_outcome == "survived":
                if in_annotation(mutation.start_pos, spans):
                    score.annotations += 1
                elif any(e.module == module.path and e.operator == mutant.operator
                       and e.before == before and e.after == after for e in equivalents):
                    score.equivalent.append(mutant)
                else:
                    score.survived.append(mutant)
            else:
                score.killed += 1
                score.killers[killer(result.output or "")] += 1
    return score


def stale_equivalents(equivalents: Sequence[Equivalent], scores: Sequence[Score]) -> list[
        Equivalent]:
    """Entries for a module that was run which match none of its surviving mutants."""
    run = {score.module: score for score in scores}
    return [e for e in equivalents if e.module in run and not any(
        m.operator == e.operator and m.before == e.before and m.after == e.after
        for m in run[e.module].equivalent)]


def report(score: Score, threshold: float, sampled: bool = False) -> str:
    """A module's score line (with its 95% interval when the mutants were a sample), then
    each surviving mutant."""
    verdict = "ok" if score.percent >= threshold and not score.errors else "BELOW"
    low, high = score.interval()
    spread = f" (95% interval {low:.0f}–{high:.0f}% on this sample)" if sampled else ""
    lines = [f"{score.module}: {score.percent:.1f}%{spread} [{verdict}] — {score.killed} killed, "
             f"{len(score.survived)} survived, "
             f"{len(score.equivalent) + score.annotations} equivalent"
             + (f", {score.unmade} that Cosmic Ray could not make" if score.unmade else "")
             + " "
             f"({score.seconds / 60:.1f} min)",
             "  killed first by: " + ", ".join(f"{name} {count}"
                                               for name, count in score.killers.items())]
    for mutant in sorted(score.survived, key=lambda m: m.line):
        lines.append(f"  survived  line {mutant.line} {mutant.operator}\n"
                     f"    - {mutant.before}\n    + {mutant.after}")
    for mutant in score.errors:
        lines.append(f"  error  line {mutant.line} {mutant.operator}: {mutant.outcome[:300]}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the mutation test of the selected modules; see the module docstring."""
    parser = argparse.ArgumentParser(prog="python -m mutation", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="*", help="module paths (default: all listed)")
    parser.add_argument("--quick", action="store_true",
                        help="only modules whose file or tests differ from --base")
    parser.add_argument("--base", default="main", help="what --quick compares with")
    parser.add_argument("--modules-file", type=Path, default=MODULES_FILE,
                        help="the modules and their tests (default: mutation/modules.toml)")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="run N mutants of each module drawn at random (the same N "
                             "every time) and give the score with its 95%% interval")
    parser.add_argument("--survivors", action="store_true",
                        help="run only the mutants that survived the last run of a module "
                             "whose source has not changed since (after adding tests)")
    args = parser.parse_args(argv)
    try:
        settings = load_settings(args.modules_file)
        equivalents = load_equivalents()
        chosen = list(settings.modules)
        if args.modules:
            unknown = set(args.modules) - {m.path for m in chosen}
            if unknown:
                raise ConfigError(f"not in {MODULES_FILE.name}: {', '.join(sorted(unknown))}")
            chosen = [m for m in chosen if m.path in args.modules]
        if args.quick:
            chosen = quick_selection(chosen, changed_files(args.base))
            if not chosen:
                print(f"no listed module or its tests differs from {args.base}")
                return 0
        scores = []
        with tempfile.TemporaryDirectory(prefix="arena-mutation-") as workdir:
            copy_tree(Path(workdir))
            for module in chosen:
                score = run_module(module, settings, Path(workdir), equivalents,
                                   args.survivors, args.sample)
                scores.append(score)
                print(report(score, settings.threshold, args.sample is not None), flush=True)
    except ConfigError as error:
        print(f"mutation: {error}", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as error:
        print(f"mutation: {shlex.join(map(str, error.cmd))} failed", file=sys.stderr)
        return 2
    stale = stale_equivalents(equivalents, scores)
    print("\nscores:")
    for score in scores:
        print(f"  {score.percent:5.1f}%  {score.module}")
    for entry in stale:
        print(f"stale in {EQUIVALENT_FILE.name} (no longer a surviving mutant): "
              f"{entry.module} {entry.operator}: {entry.before!r} → {entry.after!r}")
    failed = [s for s in scores if s.percent < settings.threshold or s.errors]
    return 1 if failed or stale else 0


if __name__ == "__main__":
    sys.exit(main())
