"""Stage 2, execute: running each section's cells in a worker process, within limits, recording
what the code depended on and the figures it made."""
