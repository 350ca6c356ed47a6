"""What every model shares: input validation (validation, finiteness, chunk_validation), the chunk
protocol of out-of-memory fits (chunks), the float32 policy (dtype_policy), BLAS threads and
row-chunk workers (threads, row_workers), scores to posteriors in log space (posterior), and progress
reports (progress)."""
