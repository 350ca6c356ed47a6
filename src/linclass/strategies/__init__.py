"""The arithmetic of the meta-estimators that combine or wrap other classifiers: one-versus-rest and
one-versus-one votes and their confidences (voting), and standardised features with the maps
between standardised and original coefficients (standardize)."""
