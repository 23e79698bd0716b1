//go:build linux

package launch

import (
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

// startBound starts cmd bound to cpu: the child inherits the CPU mask of
// the thread that forks it, so Start runs on a thread pinned to cpu,
// which is unpinned again afterwards.
func startBound(cmd *exec.Cmd, cpu int) error {
	unpin, err := affinity.Pin(cpu)
	if err != nil {
		return err
	}
	defer unpin()
	return cmd.Start()
}
