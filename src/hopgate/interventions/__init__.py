"""Interventions: plan controlled contexts, run a system on them, score its answers.

docs/spec/interventions.md is the contract. :mod:`.variants` holds the pure
rules (variant names, coverage, expected outcome, observed class, the
identity of an intervention case); :mod:`.plan` computes and records a plan
from the store; :mod:`.run` runs a system on a plan; :mod:`.score` reads the
answered variants for the evaluation.
"""
