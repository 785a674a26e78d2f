"""Kernel selection: search spaces from the backends' options, measured tuning, a store of results.

- `space`: the candidate values of each tunable knob of a target (`Knob.tune`, else its
  `choices`), points pruned by the options' own rules before anything compiles.
- `store`: tuned choices in a JSON file in the user's cache directory, keyed by what decides
  them (the traced tile IR, the shape bucket, the dtypes, the target and device, tilec's
  version); writers take a file lock; export / import for sharing.
- `tuner`: `TileOp.tune(*examples)`: time candidates, check each result against the default's,
  keep the best within a time budget, store it; later calls with shapes of the same bucket
  compile with the stored options (`TileOp.__call__`).
"""

from tilec.tuning.space import knob_values, search_points
from tilec.tuning.store import TuneStore, device_name, shape_bucket, tune_key
from tilec.tuning.tuner import TuneResult, tune

__all__ = ["TuneResult", "TuneStore", "device_name", "knob_values", "search_points", "shape_bucket", "tune", "tune_key"]
