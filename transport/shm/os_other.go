//go:build !linux

package shm

import (
	"os"
	"time"
)

const supported = false

func mapFile(*os.File, int) ([]byte, error) { return nil, ErrUnsupported }

func openPrivate(string, int) (*os.File, error) { return nil, ErrUnsupported }

func retire([]byte) error { return ErrUnsupported }

func futexWait(*uint32, uint32, time.Duration) {}

func futexWake(*uint32) {}

func processAlive(int) bool { return true }

func wakeWord(*uint32) {}

var (
	errNoProcess    = ErrUnsupported
	errNoPermission = ErrUnsupported
)

func vmRead(int, [][]byte, []span) (int, error) { return 0, ErrUnsupported }
