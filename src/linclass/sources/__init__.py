"""Where rows come from: CSV / Parquet tables (tables), files read a block at a time (files), Dask
collections (dask), and the map-over-chunks / reduce protocol that fits from any of them (chunks)."""
