"""Agents: the protocol and registry (:mod:`edgedsl.bench.agents.base`), the oracle
(:mod:`edgedsl.bench.agents.oracle`) and the scripted baselines
(:mod:`edgedsl.bench.agents.scripted`); model-backed agents register themselves the same way."""
