package smelt

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/plexus-hpc/plexus/topo"
)

// maxTextBytes bounds lscpu.txt, likwid.txt and proc_cpuinfo.txt. Real
// ones of the largest machines are a few hundred kilobytes.
const maxTextBytes = 16 << 20

// lscpu is what ReadMachineDB uses from lscpu.txt.
type lscpu struct {
	cpus           int
	sockets        int
	threadsPerCore int
	modelName      string
	mhz            float64
	// nodes maps NUMA node OS index to its CPU list (file order kept in
	// nodeOrder); nodeLine is the line each came from.
	nodes    map[int][]int
	nodeLine map[int]int
	listed   int // CPUs in nodes, all lists together
}

var nodeKey = regexp.MustCompile(`^NUMA node(\d+) CPU\(s\)$`)

// readLscpu parses the "Key: value" lines of an lscpu dump. Unknown keys
// and lines without a colon (such as the echoed command) are ignored.
func readLscpu(path string) (*lscpu, error) {
	f, err := topo.OpenFile(path, maxTextBytes)
	if err != nil {
		return nil, fmt.Errorf("smelt: %w", err)
	}
	defer f.Close()
	l := &lscpu{nodes: map[int][]int{}, nodeLine: map[int]int{}}
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		if err := l.set(strings.TrimSpace(key), strings.TrimSpace(val), ln); err != nil {
			return nil, fmt.Errorf("smelt: %s:%d: %s: %w", path, ln, strings.TrimSpace(key), err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("smelt: %s: %w", path, err)
	}
	if l.cpus <= 0 {
		return nil, fmt.Errorf("smelt: %s: no \"CPU(s):\" line", path)
	}
	return l, nil
}

func (l *lscpu) set(key, val string, ln int) error {
	var err error
	switch key {
	case "CPU(s)":
		if l.cpus, err = positive(val); err == nil {
			err = topo.CheckCPUs(l.cpus, false)
		}
	case "Socket(s)":
		l.sockets, err = positive(val)
	case "Thread(s) per core":
		l.threadsPerCore, err = positive(val)
	case "Model name":
		l.modelName = val
	case "CPU MHz":
		l.mhz, err = strconv.ParseFloat(val, 64)
		if err == nil && !(l.mhz > 0) {
			err = fmt.Errorf("%q is not a positive number", val)
		}
	default:
		m := nodeKey.FindStringSubmatch(key)
		if m == nil {
			return nil
		}
		return l.setNode(m[1], val, ln)
	}
	return err
}

// setNode records one "NUMA nodeN CPU(s):" line. The limits apply to the
// sum over the lines, which is the model's CPU count.
func (l *lscpu) setNode(num, val string, ln int) error {
	node, err := strconv.Atoi(num)
	if err != nil {
		return fmt.Errorf("bad node number %q", num)
	}
	if _, dup := l.nodes[node]; dup {
		return fmt.Errorf("node %d listed twice", node)
	}
	if len(l.nodes) >= topo.MaxNodes {
		return fmt.Errorf("%w: more than topo.MaxNodes = %d NUMA nodes", topo.ErrTooLarge, topo.MaxNodes)
	}
	ids, err := parseCPUList(val)
	if err != nil {
		return err
	}
	if l.listed += len(ids); l.listed > topo.MaxCPUs {
		return fmt.Errorf("NUMA node lists: %w", topo.CheckCPUs(l.listed, false))
	}
	l.nodes[node], l.nodeLine[node] = ids, ln
	return nil
}

func positive(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q is not a positive integer", s)
	}
	return v, nil
}

// parseCPUList parses a Linux CPU list such as "0-9,20-29". It refuses
// CPU numbers past topo.MaxCPUID and lists of more than topo.MaxCPUs
// before expanding them.
func parseCPUList(s string) ([]int, error) {
	var ids []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("bad CPU list %q", s)
		}
		if b > topo.MaxCPUID {
			return nil, fmt.Errorf("%w: CPU %d in list %q is past topo.MaxCPUID = %d", topo.ErrTooLarge, b, s, topo.MaxCPUID)
		}
		if err := topo.CheckCPUs(len(ids)+b-a+1, false); err != nil {
			return nil, fmt.Errorf("CPU list %q: %w", s, err)
		}
		for id := a; id <= b; id++ {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// nodeOrder returns the NUMA node OS indices in increasing order.
func (l *lscpu) nodeOrder() []int {
	ns := make([]int, 0, len(l.nodes))
	for n := range l.nodes {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	return ns
}

// likwidThread is one row of likwid-topology's hardware thread table.
type likwidThread struct {
	core, socket, line int
}

// readLikwid parses the "HWThread Thread Core Socket" table of a
// likwid-topology dump, keyed by OS CPU number.
func readLikwid(path string) (map[int]likwidThread, error) {
	f, err := topo.OpenFile(path, maxTextBytes)
	if err != nil {
		return nil, fmt.Errorf("smelt: %w", err)
	}
	defer f.Close()
	out := map[int]likwidThread{}
	in := false
	sc := bufio.NewScanner(f)
	for ln := 1; sc.Scan(); ln++ {
		fs := strings.Fields(sc.Text())
		switch {
		case !in:
			in = len(fs) == 4 && fs[0] == "HWThread" && fs[2] == "Core" && fs[3] == "Socket"
		case len(fs) != 4 || strings.HasPrefix(fs[0], "-"):
			return finishLikwid(path, out)
		default:
			if err := addLikwidRow(out, fs, ln); err != nil {
				return nil, fmt.Errorf("smelt: %s:%d: %w", path, ln, err)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("smelt: %s: %w", path, err)
	}
	return finishLikwid(path, out)
}

func finishLikwid(path string, out map[int]likwidThread) (map[int]likwidThread, error) {
	if len(out) == 0 {
		return nil, fmt.Errorf("smelt: %s: no \"HWThread Thread Core Socket\" table", path)
	}
	return out, nil
}

func addLikwidRow(out map[int]likwidThread, fs []string, ln int) error {
	var v [4]int
	for k, s := range fs {
		x, err := strconv.Atoi(s)
		if err != nil || x < 0 {
			return fmt.Errorf("bad hardware thread row %q", strings.Join(fs, " "))
		}
		v[k] = x
	}
	if prev, dup := out[v[0]]; dup {
		return fmt.Errorf("CPU %d listed twice (first on line %d)", v[0], prev.line)
	}
	out[v[0]] = likwidThread{core: v[2], socket: v[3], line: ln}
	return nil
}

var ghzInName = regexp.MustCompile(`@\s*([0-9]+(?:\.[0-9]+)?)\s*GHz`)

// nominalGHz returns the clock written in a CPU model name such as
// "Intel(R) Xeon(R) CPU E5-2670 v2 @ 2.50GHz", or 0.
func nominalGHz(model string) float64 {
	m := ghzInName.FindStringSubmatch(model)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// cpuinfoModel returns the first "model name" of a /proc/cpuinfo dump, or
// "" when the file is absent or has none.
func cpuinfoModel(path string) string {
	f, err := topo.OpenFile(path, maxTextBytes)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.TrimSpace(val)
		}
	}
	return ""
}
