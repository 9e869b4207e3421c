"""Requests and notifications the server sends to the client: typed handlers for elicitation, sampling, roots, logs."""
