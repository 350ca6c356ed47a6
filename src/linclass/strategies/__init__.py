"""The arithmetic of the multi-class strategies that combine binary classifiers: one-versus-rest
and one-versus-one votes and their confidences (voting)."""
