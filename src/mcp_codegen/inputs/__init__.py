"""Inputs: how to reach a server, what to generate, and the project config that names both."""
