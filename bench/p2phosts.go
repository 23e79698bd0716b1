package bench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Between hosts (P2PConfig.Hosts) every job of n ranks is spread over the
// distinct hosts in equal contiguous blocks, the same for Plexus and Open
// MPI, whatever slots a hostfile gives: the 2-rank cases run between the
// first two hosts, so point-to-point numbers cross the network, and 4
// ranks on two hosts run 2 on each.

// defaultSSH is launch.Job's remote shell when P2PConfig.SSH is nil.
var defaultSSH = []string{"ssh", "-o", "BatchMode=yes", "--"}

// distinctHosts returns hosts without repeats, in first-seen order.
func distinctHosts(hosts []string) []string {
	var d []string
	for _, h := range hosts {
		if !slices.Contains(d, h) {
			d = append(d, h)
		}
	}
	return d
}

// spread returns the host of each of n ranks: the first min(n, hosts)
// distinct hosts in equal contiguous blocks; nil when hosts is empty.
func spread(n int, hosts []string) []string {
	d := distinctHosts(hosts)
	if len(d) == 0 {
		return nil
	}
	k := min(len(d), n)
	out := make([]string, n)
	for r := range out {
		out[r] = d[r*k/n]
	}
	return out
}

// mpiHostList is mpirun's --host for ranks placed on hosts (one entry per
// rank, blocks in order): "h1:2,h2:2". mpirun fills each host's slots in
// turn, so rank r lands on hosts[r].
func mpiHostList(hosts []string) string {
	count := map[string]int{}
	for _, h := range hosts {
		count[h]++
	}
	var parts []string
	for _, h := range distinctHosts(hosts) {
		parts = append(parts, h+":"+strconv.Itoa(count[h]))
	}
	return strings.Join(parts, ",")
}

// mpiBetween returns mpirun's options for ranks on hosts: its daemons
// started through the remote shell agent, ob1 with the BTLs btl (tcp,self
// when empty: TCP also between ranks of one host, as Plexus's ranks talk
// over TCP there with transport tcp), TCP on network ifc when given, and
// no binding: hosts that share a kernel (namespace hosts) would bind their
// ranks to the same cores, and Plexus does not bind ranks on other hosts.
func mpiBetween(hosts, ssh []string, btl, ifc string) []string {
	if btl == "" {
		btl = "tcp,self"
	}
	agent := slices.Clone(ssh)
	if len(agent) > 1 && agent[len(agent)-1] == "--" {
		agent = agent[:len(agent)-1] // Open MPI puts its own options after the agent's
	}
	args := []string{"--bind-to", "none", "--host", mpiHostList(hosts)}
	if k, ok := perHost(hosts); ok {
		// Slots in --host alone do not bind every Open MPI's mapper:
		// some put every rank on the first host (docs/benchmarks.md,
		// "Many cores, seventh session"), so the count is said outright.
		args = append(args, "--map-by", "ppr:"+strconv.Itoa(k)+":node")
	}
	args = append(args, "--mca", "plm_rsh_agent", strings.Join(agent, " "), "--mca", "pml", "ob1", "--mca", "btl", btl)
	if ifc != "" {
		args = append(args, "--mca", "btl_tcp_if_include", ifc, "--mca", "oob_tcp_if_include", ifc)
	}
	return args
}

// onHost returns the command line that runs words on host through the
// remote shell ssh, which joins its arguments into one shell command as
// ssh does: each word is quoted for that shell.
func onHost(ssh []string, host string, words []string) []string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = shellQuote(w)
	}
	return append(append(slices.Clone(ssh), host), quoted...)
}

// shellQuote returns w as one word of a POSIX shell command.
func shellQuote(w string) string {
	safe := w != "" && strings.IndexFunc(w, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_@%+=:,./-", c))
	}) < 0
	if safe {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// hostsNote says where the ranks of results ran, for the table; "" when
// all ran on this host.
func hostsNote(results []P2PResult) string {
	var all []string
	for _, r := range results {
		all = append(all, r.Hosts...)
	}
	if len(all) == 0 {
		return ""
	}
	return fmt.Sprintf("hosts: %s, each job's ranks in equal contiguous blocks over them", strings.Join(distinctHosts(all), ", "))
}

// onHosts says, for the log, where n ranks run: "" on this host, else
// " on h1, h1, h2, h2".
func onHosts(n int, hosts []string) string {
	if len(hosts) == 0 {
		return ""
	}
	return " on " + strings.Join(spread(n, hosts), ", ")
}

// plexusNotes says, for the table, what carried Plexus's messages when
// ranks shared a host and others did not (shm and tcp in one job's Via),
// and whether its collectives ran in two levels (P2PResult.Levels).
func plexusNotes(results []P2PResult) []string {
	var notes []string
	mixed := slices.ContainsFunc(results, func(r P2PResult) bool {
		return slices.Contains(r.Via, "shm") && slices.Contains(r.Via, "tcp")
	})
	if mixed {
		notes = append(notes, "plexus: shared memory between ranks of one host, TCP between hosts")
	}
	levels := func(n int) bool {
		return slices.ContainsFunc(results, func(r P2PResult) bool { return r.Levels == n && len(r.Hosts) > 1 })
	}
	switch {
	case levels(2):
		notes = append(notes, "plexus: collectives in two levels across hosts (collective.Config.Hierarchy, or crowded hosts on CPUs apart)")
	case levels(1):
		notes = append(notes, "plexus: collectives on trees across hosts")
	}
	return notes
}

// perHost returns how many ranks each host holds when every host holds
// the same number.
func perHost(hosts []string) (int, bool) {
	count := map[string]int{}
	for _, h := range hosts {
		count[h]++
	}
	k := count[hosts[0]]
	for _, c := range count {
		if c != k {
			return 0, false
		}
	}
	return k, true
}
