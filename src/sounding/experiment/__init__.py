"""Experiments: `sounding run` (settings grid, arms, the user's own systems, caching, gate), regressions,
published baselines and dataset profiles. Reports are rendered by `sounding.report`."""
from .runner import ExperimentResult, gate_failures, run_experiment
from .settings import Setting

__all__ = ["ExperimentResult", "Setting", "gate_failures", "run_experiment"]
