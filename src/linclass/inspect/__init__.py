"""Looking at fitted models: the geometry of linear boundaries (geometry) and figures (plot/,
matplotlib imported only when a figure is drawn)."""
