"""Out-of-core LDA: `linclass fit --chunksize` over a Parquet file of several GB, with peak memory.

Writes a file of --gb gigabytes (d features + an integer label, float64, row groups of 100,000 rows)
unless it exists, then runs the command in a fresh process and reports its wall time and peak
resident memory (getrusage of the child), next to the file's size.

    python benchmarks/bench_out_of_core.py [--gb 5] [--d 50] [--chunksize 100000] [--path FILE]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def write(path: Path, gb: float, d: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows_per_group = 100_000
    n = int(gb * 1e9 / ((d + 1) * 8))
    groups = -(-n // rows_per_group)
    rng = np.random.default_rng(0)
    shift = rng.normal(size=(5, d))
    names = [f"x{j}" for j in range(d)]
    tmp = path.with_suffix(".partial")
    with pq.ParquetWriter(tmp, pa.schema([(c, pa.float64()) for c in names] + [("label", pa.int64())]),
                          compression="none") as writer:
        for g in range(groups):
            m = min(rows_per_group, n - g * rows_per_group)
            y = rng.integers(0, 5, m)
            X = rng.normal(size=(m, d)) + shift[y]
            columns = [pa.array(X[:, j]) for j in range(d)] + [pa.array(y)]
            writer.write_table(pa.Table.from_arrays(columns, names=names + ["label"]))
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gb", type=float, default=5.0)
    parser.add_argument("--d", type=int, default=50)
    parser.add_argument("--chunksize", type=int, default=100_000)
    parser.add_argument("--model", default="lda")
    parser.add_argument("--path", type=Path, default=None)
    args = parser.parse_args()
    path = args.path or Path(tempfile.gettempdir()) / f"linclass-bench-{args.gb:g}gb-d{args.d}.parquet"
    if not path.exists():
        start = time.perf_counter()
        write(path, args.gb, args.d)
        print(f"wrote {path} in {time.perf_counter() - start:.1f} s")
    size = path.stat().st_size
    out = Path(tempfile.mkdtemp()) / "model.linclass"
    command = [sys.executable, "-m", "linclass", "fit", "--model", args.model, "--data", str(path),
               "--target", "label", "--chunksize", str(args.chunksize), "--out", str(out)]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode:
        sys.exit(done.stderr)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # kB on Linux
    print(done.stdout.strip())
    print(f"file {size / 1e9:.2f} GB; {args.model} fit + accuracy pass {seconds:.1f} s "
          f"({2 * size / seconds / 1e6:.0f} MB/s over two passes); peak RSS {peak / 1e6:.0f} MB "
          f"({peak / size:.3f} of the file)")


if __name__ == "__main__":
    main()
