"""Experiment harness: `sounding run` (settings grid, caching, gate), regressions, reports, profiles."""
from .experiment import ExperimentResult, gate_failures, run_experiment
from .settings import Setting

__all__ = ["ExperimentResult", "Setting", "gate_failures", "run_experiment"]
