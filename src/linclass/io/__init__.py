"""What leaves or enters the process whole: model files (persistence/) and the one atomic file
writer (atomic)."""
