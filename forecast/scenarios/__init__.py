"""scenarios layer."""
