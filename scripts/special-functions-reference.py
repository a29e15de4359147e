#!/usr/bin/env python3
"""Reference values of the special functions twinbench takes from @stdlib, computed with scipy.

Writes test/fixtures/special-functions/scipy.json, which test/unit/base/distributions.special.test.ts checks the project's
wrappers (src/core/stats.ts, src/core/estimate.ts) against. Re-run after changing the grid:
    python3 scripts/special-functions-reference.py
"""
import json
import pathlib

import scipy
from scipy import special, stats

dfs = [*range(1, 201), 0.5, 1.5, 2.2, 7.5, 15.3, 1000, 1e5]
ds = [0.5, 1, 2, 3, 5, 7.5, 10, 30, 100, 1000]
xs = [0.05 + i * 0.5 for i in range(200)] + [0.01, 0.1, 0.5, 1e3, 1e5]
out = {
    "source": f"scipy {scipy.__version__}: scripts/special-functions-reference.py",
    # [p, df, t.ppf(p, df)]
    "tQuantile": [[p, df, float(stats.t.ppf(p, df))] for df in dfs for p in [0.9, 0.95, 0.975, 0.995, 0.025, 0.005, 0.6]],
    # [t, df, t.cdf(t, df)]
    "tCdf": [[t, df, float(stats.t.cdf(t, df))] for df in dfs for t in [-5, -2, -1, 0, 0.5, 1, 2, 3, 5, 10]],
    # [p, df, chi2.ppf(p, df)]
    "chiSquareQuantile": [[p, df, float(stats.chi2.ppf(p, df))] for df in [*dfs, 1500, 2000, 5000, 1e4] for p in [0.025, 0.05, 0.2, 0.5, 0.8, 0.95, 0.975]],
    # [p, d1, d2, f.ppf(p, d1, d2)]
    "fQuantile": [[p, a, b, float(stats.f.ppf(p, a, b))] for a in ds for b in ds for p in [0.025, 0.2, 0.5, 0.8, 0.95, 0.975]],
    # [x, digamma(x)], [x, polygamma(1, x)], [x, polygamma(2, x)]
    "digamma": [[x, float(special.digamma(x))] for x in xs],
    "trigamma": [[x, float(special.polygamma(1, x))] for x in xs],
    "tetragamma": [[x, float(special.polygamma(2, x))] for x in xs],
}
path = pathlib.Path(__file__).resolve().parent.parent / "test/fixtures/special-functions/scipy.json"
path.write_text(json.dumps(out, separators=(",", ":")) + "\n")
print(path, sum(len(v) for v in out.values() if isinstance(v, list)), "values")
