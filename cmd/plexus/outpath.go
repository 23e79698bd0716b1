package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// outputDir checks, before any work, that the directory an output path
// given with flagName goes to exists: finding out after a long run would
// lose the run. An empty path (no output asked for) passes.
func outputDir(flagName, path string) error {
	if path == "" || path == "-" {
		return nil
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s %s: its directory: %w", flagName, path, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s %s: %s is not a directory", flagName, path, dir)
	}
	return nil
}
