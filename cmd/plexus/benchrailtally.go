package main

// With --runs N, plexus bench rail runs every impl's cases once per
// round, N rounds, rather than each case N times in a row: runs of one
// case minutes apart meet whatever else the machine did meanwhile, and
// on a shared machine that drift was as large as the differences between
// impls. Rounds put every impl's k-th run side by side, and the median
// of each case is over its rounds.

// railKey names a case across rounds.
type railKey struct {
	bench, impl         string
	size                int
	compete, aggregated bool
}

func keyOf(r railRow) railKey {
	return railKey{r.Bench, r.Impl, r.Size, r.Compete, r.Aggregated}
}

// railTally collects each case's rows over the rounds. It is pure and
// not safe for concurrent use.
type railTally struct {
	order  []railKey
	last   map[railKey]railRow // the latest row, or the case's failure
	values map[railKey][]float64
	failed map[railKey]bool
}

func newRailTally() *railTally {
	return &railTally{last: map[railKey]railRow{}, values: map[railKey][]float64{}, failed: map[railKey]bool{}}
}

// add records a run of a case: its value, or its failure (a row with a
// note and no value), which the case then reports whatever its other
// rounds gave.
func (t *railTally) add(r railRow) {
	k := keyOf(r)
	if _, seen := t.last[k]; !seen {
		t.order = append(t.order, k)
	}
	switch {
	case t.failed[k]:
		return
	case r.Value == 0:
		t.failed[k] = true
	default:
		t.values[k] = append(t.values[k], r.Value)
	}
	t.last[k] = r
}

// skip reports whether a case failed in an earlier round: it is not run
// again.
func (t *railTally) skip(r railRow) bool { return t.failed[keyOf(r)] }

// rows returns each case's row, in the order the cases first came: the
// median of its runs (Runs says how many, Rounds what each gave), or its
// failure.
func (t *railTally) rows() []railRow {
	out := make([]railRow, 0, len(t.order))
	for _, k := range t.order {
		r := t.last[k]
		if !t.failed[k] {
			vs := t.values[k]
			r.Value, r.Runs = median(append([]float64(nil), vs...)), len(vs)
			if len(vs) > 1 {
				r.Rounds = append([]float64(nil), vs...)
			}
		}
		out = append(out, r)
	}
	return out
}
