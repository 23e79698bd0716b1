module github.com/plexus-hpc/plexus

go 1.26.0

require golang.org/x/sys v0.49.0

require github.com/anishathalye/porcupine v1.3.1
