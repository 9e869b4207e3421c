"""The other side of the wire: a fake server that answers from a snapshot, and serving a server object."""
