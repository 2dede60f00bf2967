"""economics layer."""
