package hwloc

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/plexus-hpc/plexus/topo"
)

// infinitePrefix starts the hwloc form of a bitmap whose bits are all set
// above the listed words ("0xf...f,0x0000ff00"), or of the full set when
// nothing follows.
const infinitePrefix = "0xf...f"

// maxWords is the most words a bitmap may have: enough for every CPU
// number up to topo.MaxCPUID.
const maxWords = (topo.MaxCPUID + 32) / 32

// bitmap is a parsed hwloc bitmap (cpuset or nodeset).
type bitmap struct {
	words    []uint32 // least significant word first
	infinite bool     // every bit from 32*len(words) upward is set
}

// fullBitmap contains every index; it stands in for an absent allowed set.
var fullBitmap = bitmap{infinite: true}

// parseBitmap reads hwloc's textual bitmap: comma-separated 32-bit hex
// words, most significant first, where an empty word means 0, optionally
// preceded by "0xf...f," for an infinitely set tail.
func parseBitmap(s string) (bitmap, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return bitmap{}, fmt.Errorf("empty bitmap")
	}
	var b bitmap
	if rest, ok := strings.CutPrefix(s, infinitePrefix); ok {
		if rest == "" {
			return fullBitmap, nil
		}
		if rest[0] != ',' {
			return bitmap{}, fmt.Errorf("bitmap %q: %s must be followed by a comma", s, infinitePrefix)
		}
		s, b.infinite = rest[1:], true
	}
	parts := strings.Split(s, ",")
	if len(parts) > maxWords {
		return bitmap{}, fmt.Errorf("%w: bitmap of %d words, more than %d (index topo.MaxCPUID = %d)",
			topo.ErrTooLarge, len(parts), maxWords, topo.MaxCPUID)
	}
	b.words = make([]uint32, len(parts))
	for i, p := range parts {
		w, err := parseWord(p)
		if err != nil {
			return bitmap{}, fmt.Errorf("bitmap %q: word %d: %w", s, i+1, err)
		}
		b.words[len(parts)-1-i] = w
	}
	return b, nil
}

// parseWord reads one 32-bit word; hwloc writes "0x%08x" but its reader
// also accepts empty words (zero) and a missing 0x prefix.
func parseWord(p string) (uint32, error) {
	if p == "" {
		return 0, nil
	}
	h := p
	if len(h) >= 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X') {
		h = h[2:]
	}
	if h == "" {
		return 0, fmt.Errorf("%q has no hex digits", p)
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return 0, fmt.Errorf("%q is not a 32-bit hex number", p)
	}
	return uint32(v), nil
}

// has reports whether bit i is set.
func (b bitmap) has(i int) bool {
	if i < 0 {
		return false
	}
	w := i / 32
	if w >= len(b.words) {
		return b.infinite
	}
	return b.words[w]>>(uint(i)%32)&1 != 0
}

// count returns the number of set bits, math.MaxInt for infinite sets, so
// that the smallest set wins comparisons of locality.
func (b bitmap) count() int {
	if b.infinite {
		return math.MaxInt
	}
	n := 0
	for _, w := range b.words {
		n += bits.OnesCount32(w)
	}
	return n
}

// indexes lists the set bits of the finite part, ascending.
func (b bitmap) indexes() []int {
	var out []int
	for wi, w := range b.words {
		for w != 0 {
			t := bits.TrailingZeros32(w)
			out = append(out, wi*32+t)
			w &^= 1 << t
		}
	}
	return out
}
