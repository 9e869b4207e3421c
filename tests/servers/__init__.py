"""Servers the test suite runs against: in-process HTTP helpers and the npm-installed third-party servers."""
