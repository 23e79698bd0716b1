package smelt

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

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
}

var nodeKey = regexp.MustCompile(`^NUMA node(\d+) CPU\(s\)$`)

// readLscpu parses the "Key: value" lines of an lscpu dump. Unknown keys
// and lines without a colon (such as the echoed command) are ignored.
func readLscpu(path string) (*lscpu, error) {
	f, err := os.Open(path)
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
		l.cpus, err = positive(val)
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
		node, _ := strconv.Atoi(m[1])
		if _, dup := l.nodes[node]; dup {
			return fmt.Errorf("node %d listed twice", node)
		}
		l.nodes[node], err = parseCPUList(val)
		l.nodeLine[node] = ln
	}
	return err
}

func positive(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q is not a positive integer", s)
	}
	return v, nil
}

// parseCPUList parses a Linux CPU list such as "0-9,20-29".
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
	f, err := os.Open(path)
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
	b, err := os.ReadFile(path)
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
