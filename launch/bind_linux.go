//go:build linux

package launch

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/plexus-hpc/plexus/affinity"
)

// usableCores lists the CPUs this process may use, grouped by core as
// sysfs describes them.
func usableCores() ([][]int, error) {
	cpus, err := affinity.Allowed()
	if err != nil {
		return nil, err
	}
	return groupCores(cpus, sysfsCore), nil
}

// sysfsCore is a CPU's package and core id from sysfs.
func sysfsCore(cpu int) (string, bool) {
	dir := "/sys/devices/system/cpu/cpu" + strconv.Itoa(cpu) + "/topology/"
	pkg, err1 := os.ReadFile(dir + "physical_package_id")
	core, err2 := os.ReadFile(dir + "core_id")
	if err1 != nil || err2 != nil {
		return "", false
	}
	return strings.TrimSpace(string(pkg)) + "/" + strings.TrimSpace(string(core)), true
}

// startBound starts cmd bound to cpus: the child inherits the CPU mask of
// the thread that forks it, so Start runs on this goroutine's thread,
// pinned to cpus for the while.
func startBound(cmd *exec.Cmd, cpus []int) error {
	unpin, err := affinity.PinSet(cpus)
	if err != nil {
		return fmt.Errorf("launch: binding to CPUs %v: %w", cpus, err)
	}
	defer unpin()
	return cmd.Start()
}
