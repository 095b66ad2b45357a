"""Checks: the lit files (semantic and snapshot layers), CHECK-line regeneration and the audit of existing tests."""
