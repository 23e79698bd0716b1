module github.com/plexus-hpc/plexus

go 1.26
