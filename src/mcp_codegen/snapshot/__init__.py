"""Stage 1: connect to a server and capture its listings as a canonical, versioned snapshot."""
