"""Mr. TyDi language analyzers (registered on import)."""
