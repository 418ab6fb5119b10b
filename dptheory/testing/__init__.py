"""Test helpers shipped with the package: hypothesis strategies derived from conditions, profiles, peer accountants."""
