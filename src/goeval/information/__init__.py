"""Information accretion and term information content."""
