"""What leaves or enters the process whole: model files (persistence/), the bundled data sets
(datasets), and the one atomic file writer (atomic)."""
