package launch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxHosts bounds an expansion, so that a typo such as "n[0-999999999]"
// is an error instead of an out-of-memory crash.
const maxHosts = 1 << 20

var errHostlist = errors.New("launch: bad hostlist")

// expandHostlist expands Slurm's compressed host list syntax:
// "node[01-03,07],gpu5" is node01 node02 node03 node07 gpu5. Ranges keep
// the zero padding of their lower bound, several bracket groups in one
// name multiply ("r[1-2]n[1-2]" is r1n1 r1n2 r2n1 r2n2), and the empty
// string is no hosts.
func expandHostlist(list string) ([]string, error) {
	var hosts []string
	for _, name := range splitTop(list) {
		if name == "" {
			if list == "" {
				break
			}
			return nil, fmt.Errorf("%w: empty name in %q", errHostlist, list)
		}
		more, err := expandName(name)
		if err != nil {
			return nil, err
		}
		if len(hosts)+len(more) > maxHosts {
			return nil, fmt.Errorf("%w: %q names more than %d hosts", errHostlist, list, maxHosts)
		}
		hosts = append(hosts, more...)
	}
	return hosts, nil
}

// splitTop splits at the commas that are outside brackets.
func splitTop(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// expandName expands one name with any number of bracket groups.
func expandName(name string) ([]string, error) {
	open := strings.IndexByte(name, '[')
	if open < 0 {
		if strings.ContainsAny(name, "]") {
			return nil, fmt.Errorf("%w: unmatched ] in %q", errHostlist, name)
		}
		return []string{name}, nil
	}
	end := strings.IndexByte(name[open:], ']')
	if end < 0 {
		return nil, fmt.Errorf("%w: unmatched [ in %q", errHostlist, name)
	}
	end += open
	ids, err := expandRanges(name[open+1 : end])
	if err != nil {
		return nil, fmt.Errorf("%w in %q", err, name)
	}
	tails, err := expandName(name[end+1:])
	if err != nil {
		return nil, err
	}
	if len(ids)*len(tails) > maxHosts {
		return nil, fmt.Errorf("%w: %q names more than %d hosts", errHostlist, name, maxHosts)
	}
	out := make([]string, 0, len(ids)*len(tails))
	for _, id := range ids {
		for _, t := range tails {
			out = append(out, name[:open]+id+t)
		}
	}
	return out, nil
}

// expandRanges expands the inside of brackets, "01-03,07".
func expandRanges(s string) ([]string, error) {
	var ids []string
	for _, r := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		if !isRange {
			hi = lo
		}
		a, errA := strconv.ParseUint(lo, 10, 32)
		b, errB := strconv.ParseUint(hi, 10, 32)
		switch {
		case errA != nil || errB != nil:
			return nil, fmt.Errorf("%w: range %q is not numeric", errHostlist, r)
		case b < a:
			return nil, fmt.Errorf("%w: range %q is descending", errHostlist, r)
		case uint64(len(ids))+b-a >= maxHosts:
			return nil, fmt.Errorf("%w: range %q is longer than %d", errHostlist, r, maxHosts)
		}
		for n := a; n <= b; n++ {
			ids = append(ids, fmt.Sprintf("%0*d", len(lo), n))
		}
	}
	return ids, nil
}

// expandCounts expands Slurm's tasks-per-node syntax, "2(x3),1".
func expandCounts(s string) ([]int, error) {
	var counts []int
	for _, part := range strings.Split(s, ",") {
		val, rep := part, "1"
		if i := strings.Index(part, "(x"); i >= 0 && strings.HasSuffix(part, ")") {
			val, rep = part[:i], part[i+2:len(part)-1]
		}
		n, errN := strconv.Atoi(val)
		k, errK := strconv.Atoi(rep)
		if errN != nil || errK != nil || n < 0 || k < 1 || len(counts)+k > maxHosts {
			return nil, fmt.Errorf("launch: bad tasks-per-node list %q at %q", s, part)
		}
		for range k {
			counts = append(counts, n)
		}
	}
	return counts, nil
}
