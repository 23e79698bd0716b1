package shm

import (
	"fmt"
	"sync/atomic"
)

// checkHeader validates the header of a mapped segment against l and job.
// It reads only the header line, so mem may be just that line.
func (l layout) checkHeader(mem []byte, job string) error {
	if len(mem) < line {
		return fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrBadSegment, len(mem), line)
	}
	if m := atomic.LoadUint64(word(mem, magicOff)); m != magic {
		return fmt.Errorf("%w: magic %#x, want %#x (not a Plexus segment, or corrupted)", ErrBadSegment, m, uint64(magic))
	}
	if v := *word(mem, versionOff); v != version {
		return fmt.Errorf("%w: layout version %d, this build reads %d", ErrBadSegment, v, version)
	}
	if h := *word(mem, jobOff); h != jobHash(job) {
		return fmt.Errorf("%w: job hash %#x, want %#x for job %q (another job's segment)", ErrBadSegment, h, jobHash(job), job)
	}
	return l.checkGeometry(mem)
}

func (l layout) checkGeometry(mem []byte) error {
	for _, f := range []struct {
		name string
		off  int
		want int
	}{
		{"size", sizeOff, l.segBytes}, {"rank count", ranksOff, l.ranks}, {"slot count", slotsOff, l.slots},
		{"ring size", ringSizeOff, l.ringBytes}, {"ring offset", ringsAtOff, l.ringsOff},
	} {
		if got := *word(mem, f.off); got != uint64(f.want) {
			return fmt.Errorf("%w: %s %d, want %d (segment corrupted, or ranks disagree on Size or Slots)", ErrBadSegment, f.name, got, f.want)
		}
	}
	return nil
}
