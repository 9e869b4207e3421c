"""What a call is and what it returns: specs, per-call options, results, errors, drift and tracing."""
