"""M3 vendor spend, with M5 (AWS custom silicon) inside: one joint Bayesian state space.

The model card is docs/models/spend.md.
"""
