"""Generation: snapshot -> IR with every name decided -> pydantic models and templates -> formatted files."""
