package guard

import (
	"net"
	"sync"
)

// Gate bounds the connections in their handshake: at most total in all
// and perSource from one source. When a new connection would exceed a
// bound, the gate ends the oldest handshake of the same source, or, for
// the total, of the source that holds the most, rather than turning the
// newcomer away. A rank of the job proves itself within a round trip, so
// it is the strangers that sit silent, grow old and are ended; turning
// newcomers away instead would let a few silent connections lock the
// job's ranks out until they time out.
//
// Its methods are safe for concurrent use.
type Gate struct {
	total, perSource int

	mu     sync.Mutex
	n      int
	source map[string][]*Ticket // per source, oldest first
}

// Ticket is one admitted connection.
type Ticket struct {
	g    *Gate
	src  string
	end  func()
	held bool // under g.mu
}

// NewGate returns a gate of total handshakes at most, perSource of them
// from one source; both must be positive.
func NewGate(total, perSource int) *Gate {
	if total < 1 || perSource < 1 {
		panic("guard: NewGate bounds must be positive")
	}
	return &Gate{total: total, perSource: perSource, source: map[string][]*Ticket{}}
}

// Admit registers a connection from src in its handshake; end closes it,
// and is called (without the gate's lock held, at most once) if the gate
// evicts it to make room for a newer one. The caller calls the ticket's
// Release when the handshake ends, either way.
func (g *Gate) Admit(src string, end func()) *Ticket {
	t := &Ticket{g: g, src: src, end: end, held: true}
	g.mu.Lock()
	victim := g.victim(src)
	if victim != nil {
		g.remove(victim)
	}
	g.source[src] = append(g.source[src], t)
	g.n++
	g.mu.Unlock()
	if victim != nil {
		victim.end()
	}
	return t
}

// victim picks the handshake to end before admitting one from src, or
// nil if there is room. g.mu must be held.
func (g *Gate) victim(src string) *Ticket {
	if q := g.source[src]; len(q) >= g.perSource {
		return q[0]
	}
	if g.n < g.total {
		return nil
	}
	var most []*Ticket
	for _, q := range g.source {
		if len(q) > len(most) {
			most = q
		}
	}
	return most[0]
}

// remove takes t out of the gate. g.mu must be held and t held.
func (g *Gate) remove(t *Ticket) {
	q := g.source[t.src]
	for i, u := range q {
		if u == t {
			q = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	if len(q) == 0 {
		delete(g.source, t.src)
	} else {
		g.source[t.src] = q
	}
	g.n--
	t.held = false
}

// Release ends t's handshake in the gate, freeing its place, and reports
// whether t still held it: false means the gate evicted t and closed its
// connection. Only the first call counts; later ones report false.
func (t *Ticket) Release() bool {
	g := t.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if !t.held {
		return false
	}
	g.remove(t)
	return true
}

// Len returns how many handshakes the gate holds.
func (g *Gate) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.n
}

// Source returns the source a connection from addr counts against: its
// IP address, without the port.
func Source(addr net.Addr) string {
	if a, ok := addr.(*net.TCPAddr); ok {
		return a.IP.String()
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return addr.String()
	}
	return host
}
