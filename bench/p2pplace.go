package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Between hosts, a comparison means something only if Open MPI's ranks
// sit where Plexus's do: a mapper that ignores the slots asked for puts
// them all on the first host, and Open MPI's numbers are then those of
// shared memory. So before the first run of each rank count between
// hosts, mpiImpl runs the same mpirun line with hostname as the program
// and checks the placement (placementErr).

// ErrPlacement reports an Open MPI job whose ranks did not land on the
// hosts as asked.
var ErrPlacement = errors.New("bench: Open MPI placed its ranks otherwise than asked")

// checkPlacement checks, once per rank count, that mpirun places n ranks
// as spread does; on this host alone there is nothing to check.
func (m *mpiImpl) checkPlacement(ctx context.Context, n int) error {
	hosts := spread(n, m.cfg.Hosts)
	if hosts == nil || m.placed[n] {
		return nil
	}
	out, err := m.exec(ctx, m.mpirun(n, []string{"hostname"}))
	if err != nil {
		return fmt.Errorf("openmpi: placement of %d ranks (mpirun ... hostname): %w", n, err)
	}
	if err := placementErr(hosts, strings.Fields(out.String())); err != nil {
		return err
	}
	if m.placed == nil {
		m.placed = map[int]bool{}
	}
	m.placed[n] = true
	return nil
}

// placementErr compares where ranks were asked to run (one host per
// rank) with the host names they printed, in any order. Names are not
// compared, since a host given by address or alias prints another name:
// only how many ranks shared each host, which must be the same multiset.
func placementErr(asked, got []string) error {
	if len(got) != len(asked) {
		return fmt.Errorf("%w: %d ranks asked for, %d reported their host", ErrPlacement, len(asked), len(got))
	}
	want, have := groupSizes(asked), groupSizes(got)
	if !slices.Equal(want, have) {
		return fmt.Errorf("%w: ranks per host %v (%s), asked for %v (%s)",
			ErrPlacement, have, strings.Join(got, ","), want, strings.Join(asked, ","))
	}
	return nil
}

// groupSizes returns how many of names are each distinct name, sorted.
func groupSizes(names []string) []int {
	count := map[string]int{}
	for _, n := range names {
		count[n]++
	}
	var sizes []int
	for _, c := range count {
		sizes = append(sizes, c)
	}
	slices.Sort(sizes)
	return sizes
}
