package task

import (
	"errors"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

// stealer is the rank's one outstanding steal, as in Grappa: when this
// rank has a group under way, no queued task, and a worker waiting, it
// asks a random live rank for half of its public queue. Steals that find
// nothing back off, so idle ranks do not flood busy ones; the backoff
// counts the failures of one idle spell only. A rank that got work since
// (a task sent to it, say) starts its next spell stealing at once: its
// steal request is also what makes a busy rank send the tasks and replies
// it holds for it (am sends a buffer with a reply when its handlers are
// done), so a backoff carried over from an earlier spell would hold a
// rank that other ranks feed by SpawnOn idle for up to maxBackoff at
// every hand-off (docs/design/apps.md, UTS-Mem).
func (p *Pool) stealer() {
	defer p.wg.Done()
	fails, ran := 0, p.stats.tasks.Load()
	for p.hungry() {
		if n := p.stats.tasks.Load(); n != ran { // this rank ran tasks since: a new spell
			fails, ran = 0, n
		}
		if fails > 0 && !p.sleep(backoff(fails)) {
			return
		}
		victim, ok := p.victim()
		if !ok {
			fails++
			continue
		}
		if p.stealFrom(victim) > 0 {
			fails = 0
		} else {
			fails++
		}
	}
}

// hungry waits until this rank should steal and reports true, or false
// once the pool closes.
func (p *Pool) hungry() bool {
	for {
		p.mu.Lock()
		want := p.live > 0 && p.idle > 0 && p.private.len() == 0 && p.public.len() == 0
		p.mu.Unlock()
		if want {
			return true
		}
		select {
		case <-p.kick:
		case <-p.ctx.Done():
			return false
		}
	}
}

// sleep pauses for d and reports false if the pool closes first.
func (p *Pool) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.ctx.Done():
		return false
	}
}

// victim draws the rank to steal from.
func (p *Pool) victim() (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return chooseVictim(p.Rank(), p.dead, p.rnd.Uint64())
}

// stealFrom asks victim for tasks and queues what it gives in this
// rank's public queue, where they may be stolen again. It returns the
// tasks taken. The call uses the pool's context, never a caller's: a
// reply abandoned after the victim gave its tasks away would lose them.
func (p *Pool) stealFrom(victim int) int {
	p.stats.attempts.Add(1)
	b, err := p.e.Call(p.ctx, victim, p.ids.steal, nil)
	if err != nil {
		if errors.Is(err, comm.ErrPeerLost) {
			p.mu.Lock()
			p.dead[victim] = true
			p.mu.Unlock()
		}
		return 0
	}
	items, err := decodeItems(b, len(p.funcs), len(p.loops))
	if err != nil {
		p.cfg.Logger.Warn("task: dropping a malformed steal reply", "from", victim, "err", err)
		return 0
	}
	n := p.accept(items, &p.public)
	if n > 0 {
		p.stats.steals.Add(1)
		p.stats.stolen.Add(uint64(n))
	}
	return n
}
