"""One module per tool, as the generator lays them out (imported lazily by the specs)."""
