"""A run split over processes (docs/parallel.md): mpirun -np P of the CLI with --partitions P,
read back into a Result as the native run gives it (the outputs are the single run's)."""
import csv
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .store import SERIES_NAMES


def _cli():
    """The sluice CLI of the build the native module comes from (build/platforms/sluice)."""
    import _sluice

    path = Path(os.environ.get("SLUICE_CLI") or Path(_sluice.__file__).resolve().parent.parent / "platforms" / "sluice")
    if not path.is_file():
        raise FileNotFoundError(f"partitions: the sluice CLI '{path}' is missing (build it, or set SLUICE_CLI)")
    return path


def _series(folder):
    """The run folder's CSVs as the native module hands its series over."""
    out = {}
    for name in SERIES_NAMES:
        file = folder / f"{name}.csv"
        if not file.is_file():
            out[name] = {"time_us": [], "columns": [], "values": []}
            continue
        with file.open(newline="") as f:
            rows = list(csv.reader(f))
        body = [[float(v) for v in r] for r in rows[1:]]
        out[name] = {"time_us": [r[0] for r in body], "columns": rows[0][1:], "values": [r[1:] for r in body]}
    return out


def run_partitioned(spec, partitions, method):
    """Runs `spec` (simulation._run_spec's) over `partitions` processes; returns the raw result."""
    mpirun = shutil.which("mpirun")
    if not mpirun:
        raise FileNotFoundError("partitions: mpirun is not installed (tools/setup.sh installs openmpi-bin)")
    with tempfile.TemporaryDirectory(prefix="sluice-parts-") as tmp:
        if "path" in spec:
            scenario = spec["path"]
        else:  # a dict or YAML text: a file beside its base folder's files (relative CDF paths)
            handle = tempfile.NamedTemporaryFile("w", suffix=".yaml", dir=spec["base_dir"], delete=False)
            with handle:
                handle.write(spec["text"])
            scenario = handle.name
        args = [str(_cli()), "run", scenario, "--partitions", str(partitions), "--partition-method", method,
                "-q", "--out", os.path.join(tmp, "run")]
        for key, value in spec["sets"]:
            args += ["--set", f"{key}={value}"]
        for key in ("seed", "cc", "profile", "sample_period", "until"):
            if key in spec:
                args += ["--" + key.replace("_", "-"), spec[key]]
        if spec.get("allow_inert"):
            args.append("--allow-inert")
        env = dict(os.environ)
        if os.geteuid() == 0:  # Open MPI refuses root without both
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        command = [mpirun, "--quiet", "-np", str(partitions)]
        if partitions > (os.cpu_count() or 1):
            command.append("--oversubscribe")
        try:
            done = subprocess.run(command + args, env=env, capture_output=True, text=True)
        finally:
            if "path" not in spec:
                os.unlink(scenario)
        if done.returncode != 0:
            lines = [line for line in done.stderr.splitlines() if line.startswith("sluice:")]
            raise RuntimeError(lines[0] if lines else f"partitions: mpirun exited {done.returncode}: "
                               f"{done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ''}")
        folder = Path(tmp, "run")
        return {"summary": (folder / "summary.json").read_text(), "interrupted": False, "series": _series(folder),
                "returns": []}
