package sysfs

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/plexus-hpc/plexus/topo"
)

// Local discovers the running machine from /sys and fills in what Discover
// leaves to its caller: Name and Provenance.Host from the host name,
// Provenance.CPUModel from /proc/cpuinfo (empty when it cannot be read) and
// Provenance.Date as today's date. On systems other than Linux, or without
// /sys, it returns an error.
//
// The model lists every online CPU, which may be more than the process may
// run on (runtime.NumCPU counts only the CPUs in its affinity mask).
func Local() (*topo.Model, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("sysfs: topology discovery needs Linux, not %s", runtime.GOOS)
	}
	m, err := Discover("/sys")
	if err != nil {
		return nil, err
	}
	// The host name only labels the model, so failing to get one is no
	// reason to fail discovery.
	if host, err := os.Hostname(); err == nil {
		m.Name = host
		m.Provenance.Host = host
	}
	m.Provenance.CPUModel = cpuModel("/proc/cpuinfo")
	m.Provenance.Date = time.Now().Format(time.DateOnly)
	return m, nil
}

// cpuModel returns the first "model name" in a cpuinfo file, or "" when
// there is none (ARM kernels, for one, do not print it).
func cpuModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, value, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return ""
}
