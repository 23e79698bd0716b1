//go:build !linux

package main

import (
	"fmt"
	"os"
)

// The namespace cluster and its rank roles exist on Linux only; TestMain
// names them on every system, so elsewhere they say so and fail.

func clusterRank() int { return noCluster() }

func strangerDial() int { return noCluster() }

func faultRank(string) int { return noCluster() }

func noCluster() int {
	fmt.Fprintln(os.Stderr, "the namespace cluster's rank roles need Linux")
	return 1
}
