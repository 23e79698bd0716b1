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

func processAlive(int) bool { return true }

type doorbell struct{}

func bellPath(string, int) string { return "" }

func openDoorbell(string) (*doorbell, error) { return nil, ErrUnsupported }

func (*doorbell) wait(time.Duration) {}

func (*doorbell) close() {}

func (*doorbell) release() {}

func openBell(string) int { return -1 }

func ringBell(int) {}

func ownFIFO(string) bool { return false }

func closeBell(int) {}

var (
	errNoProcess    = ErrUnsupported
	errNoPermission = ErrUnsupported
)

func vmRead(int, [][]byte, []span) (int, error) { return 0, ErrUnsupported }
