"""What builds keep between them under the cache folder: file hashes, section results, rendered
sections, formulas, and the manifest of the last good build."""
