"""The clients generated packages extend: the async client built from parts, its blocking twin, and toolkits."""
