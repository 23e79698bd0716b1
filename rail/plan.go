package rail

import (
	"fmt"
	"slices"
	"time"
)

// Threshold returns the smallest power-of-two size, up to the largest
// sample of any rail, from which Split divides a message among idle
// rails: below it the offload cost outweighs what a second rail saves,
// and messages go whole, packed with others. This is the split
// (rendezvous) threshold found from the samples; 0 when no size up to the
// largest sample splits, as with a single rail.
func Threshold(rails []Rail, cfg Config) int {
	idle := make([]Rail, len(rails))
	largest := 0
	for i, r := range rails {
		idle[i] = Rail{Profile: r.Profile, Down: r.Down, Slowdown: r.Slowdown}
		if !r.Down {
			largest = max(largest, r.Profile.Samples[len(r.Profile.Samples)-1].Size)
		}
	}
	for n := 1; n <= largest; n *= 2 {
		if len(Split(idle, n, cfg)) > 1 {
			return n
		}
	}
	return 0
}

// Send is one transfer Plan asks for: a packet of whole messages
// Msg..Msg+Count-1 of the queue (Offset 0, Len their total), or one chunk
// of message Msg (Count 1) at Offset.
type Send struct {
	Rail        int
	Msg, Count  int
	Offset, Len int
	Done        time.Duration
}

// Plan decides how a queue of messages (their sizes, in the order sent)
// goes over rails: runs of messages below the threshold are packed, at
// most cfg.MaxPacket bytes a packet, onto the rail that delivers the
// packet first; larger messages are split. Each decision makes its rails
// busy until its predicted end, which the next decision counts. rails is
// not modified; the returned busy times are the rails' after the queue.
// Plan returns nil sends when every rail is down. A message of 0 bytes
// is a message like any other, packed with its neighbours; a negative
// size panics.
func Plan(rails []Rail, sizes []int, cfg Config) (sends []Send, busy []time.Duration) {
	if i := slices.IndexFunc(sizes, func(n int) bool { return n < 0 }); i >= 0 {
		panic(fmt.Sprintf("rail: Plan: message %d of %d bytes", i, sizes[i]))
	}
	cfg.Validate()
	if cfg.Threshold <= 0 {
		cfg.Threshold = Threshold(rails, cfg)
	}
	rs := append([]Rail(nil), rails...)
	for m := 0; m < len(sizes); {
		var add []Send
		if cfg.Threshold > 0 && sizes[m] >= cfg.Threshold {
			add = planSplit(rs, m, sizes[m], cfg)
			m++
		} else {
			var count int
			add, count = planPacket(rs, sizes[m:], m, cfg)
			m += count
		}
		if add == nil {
			return nil, nil
		}
		sends = append(sends, add...)
	}
	busy = make([]time.Duration, len(rs))
	for i, r := range rs {
		busy[i] = r.Busy
	}
	return sends, busy
}

// planSplit splits message m across rs and marks the rails busy.
func planSplit(rs []Rail, m, size int, cfg Config) []Send {
	var out []Send
	for _, c := range Split(rs, size, cfg) {
		rs[c.Rail].Busy = c.Done
		out = append(out, Send{Rail: c.Rail, Msg: m, Count: 1, Offset: c.Offset, Len: c.Len, Done: c.Done})
	}
	return out
}

// planPacket packs the run of small messages at the head of sizes (the
// first always, then while under the threshold and MaxPacket) onto the
// rail that delivers the packet first.
func planPacket(rs []Rail, sizes []int, m int, cfg Config) ([]Send, int) {
	total, count := sizes[0], 1
	for count < len(sizes) && (cfg.Threshold <= 0 || sizes[count] < cfg.Threshold) && total+sizes[count] <= cfg.MaxPacket {
		total += sizes[count]
		count++
	}
	r, done := Pick(rs, total)
	if r < 0 {
		return nil, count
	}
	rs[r].Busy = done
	return []Send{{Rail: r, Msg: m, Count: count, Len: total, Done: done}}, count
}
