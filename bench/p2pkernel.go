package bench

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// Hosts that share one kernel (network namespaces, containers) share its
// CPUs. Plexus's ranks find out (comm.World.Crowded, by boot id) and take
// turns; Open MPI's cannot, as each host's daemon sees all the CPUs, so 4
// ranks on 2 namespace hosts of a 2-CPU machine would spin against each
// other. Open MPI yields on its own when it knows a host is
// oversubscribed (mpi_yield_when_idle); between hosts P2P tells it so
// when the ranks on one kernel outnumber its CPUs, from each host's boot id
// and CPU count, asked through the remote shell.

// kernel is what a host says of the kernel it runs on.
type kernel struct {
	boot string // /proc/sys/kernel/random/boot_id
	cpus int    // nproc
}

// kernelProbe is the shell command that prints a host's kernel.
const kernelProbe = "cat /proc/sys/kernel/random/boot_id && nproc"

// probeKernels asks every distinct host of hosts for its kernel, through
// the remote shell ssh.
func probeKernels(ctx context.Context, ssh, hosts []string) (map[string]kernel, error) {
	out := map[string]kernel{}
	for _, h := range distinctHosts(hosts) {
		words := append(append([]string(nil), ssh...), h, kernelProbe)
		var stdout, stderr bytes.Buffer
		cmd := exec.CommandContext(ctx, words[0], words[1:]...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("bench: asking host %s for its kernel through %q: %w\n%s", h, ssh, err, stderr.Bytes())
		}
		k, err := parseKernel(stdout.String())
		if err != nil {
			return nil, fmt.Errorf("bench: host %s: %w", h, err)
		}
		out[h] = k
	}
	return out, nil
}

// parseKernel reads kernelProbe's output: a boot id line, a CPU count line.
func parseKernel(s string) (kernel, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return kernel{}, fmt.Errorf("%q is not a boot id and a CPU count", s)
	}
	n, err := strconv.Atoi(f[1])
	if err != nil || n < 1 {
		return kernel{}, fmt.Errorf("CPU count %q", f[1])
	}
	return kernel{boot: f[0], cpus: n}, nil
}

// crowdedOn reports whether the ranks placed on hosts (one entry per
// rank) outnumber the CPUs of a kernel they share; hosts missing from
// kernels count as kernels of their own with enough CPUs.
func crowdedOn(placed []string, kernels map[string]kernel) bool {
	ranks := map[string]int{}
	for _, h := range placed {
		k, ok := kernels[h]
		if !ok {
			continue
		}
		if ranks[k.boot]++; ranks[k.boot] > k.cpus {
			return true
		}
	}
	return false
}
