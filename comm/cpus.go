package comm

import (
	"os"
	"runtime"

	"github.com/plexus-hpc/plexus/launch"
	"github.com/plexus-hpc/plexus/topo/sysfs"
)

// hostCPUs is how many CPUs the ranks of this host share, for crowded:
// what the launcher says (plexus run), else the CPUs online, else
// runtime.NumCPU. The process's own affinity mask is the wrong measure:
// a launcher that binds each rank to a few cores (plexus run gives each
// a share, mpirun one core each when the ranks fit) leaves each rank
// seeing only those.
func hostCPUs(info launch.Info) int {
	if info.HostCPUs > 0 {
		return info.HostCPUs
	}
	if b, err := os.ReadFile("/sys/devices/system/cpu/online"); err == nil {
		if cpus, err := sysfs.ParseCPUList(string(b)); err == nil && len(cpus) > 0 {
			return len(cpus)
		}
	}
	return runtime.NumCPU()
}
