"""Where rows come from: CSV / Parquet tables (tables, reading their blocks with csv_blocks and
parquet_blocks), files read a block at a time (files), Dask collections (dask), and the
map-over-chunks / reduce protocol that fits from any of them (chunks)."""
