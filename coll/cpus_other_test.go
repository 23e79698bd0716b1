//go:build !linux

package coll

import "errors"

func currentCPUs() ([]int, error) { return nil, errors.New("no affinity on this platform") }
