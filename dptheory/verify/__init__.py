"""Deciding claims: the checker, certification on arb balls (branch and bound), counterexample search, verdicts."""
