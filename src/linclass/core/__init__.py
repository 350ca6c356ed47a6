"""What every model shares: the door that checks every input, decides the float32 policy and
checks finiteness and magnitude (validation, with its compiled pass in magnitude_kernel, and
chunk_validation for chunked sources), the chunk protocol of out-of-memory fits (chunks), how work
is shared among threads, BLAS's and the row workers' (threads), scores to posteriors in log space
(posterior), and progress reports (progress)."""
