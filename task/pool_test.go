package task

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/internal/jobtest"
)

func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("zero Config: %v", err)
	}
	for _, c := range []Config{
		{Workers: -1}, {Workers: 1 << 20}, {Grain: -2}, {MaxArgs: -1},
		{StealBytes: 10}, {MaxArgs: 8 << 10, StealBytes: 8 << 10},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v: no error", c)
		}
		if _, err := New(&am.Registry{}, c); err == nil {
			t.Errorf("New(%+v): no error", c)
		}
	}
}

// TestRegistration: bad names and functions fail with ErrRegistry, and
// ranks that registered different task functions fail at am.New.
func TestRegistration(t *testing.T) {
	var reg am.Registry
	p := must(New(&reg, Config{}))
	noop := func(context.Context, *T, []byte) error { return nil }
	if _, err := p.Register("a", noop); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"duplicate": second(p.Register("a", noop)),
		"nil func":  second(p.Register("b", nil)),
		"nil loop":  second(p.RegisterLoop("c", nil)),
	} {
		if !errors.Is(err, ErrRegistry) && !errors.Is(err, am.ErrRegistry) {
			t.Errorf("%s: %v, want a registration error", name, err)
		}
	}
	if _, err := p.NewGroup(); !errors.Is(err, ErrUnbound) {
		t.Errorf("NewGroup before Bind: %v, want ErrUnbound", err)
	}

	_, err := startAll(t, 2, func(rank int, p *Pool) {
		if rank == 1 {
			must(p.Register("extra", noop))
		}
	})
	if !errors.Is(err, am.ErrMismatch) || !strings.Contains(err.Error(), "task.func/extra") {
		t.Errorf("different tables: %v, want am.ErrMismatch naming task.func/extra", err)
	}
}

func second[T any](_ T, err error) error { return err }

// startAll is newJob that returns the ranks' start error instead of
// failing the test.
func startAll(t *testing.T, n int, reg func(rank int, p *Pool)) (*job, error) {
	j := &job{es: make([]*am.Engine, n), pools: make([]*Pool, n)}
	twin, ws := jobtest.TwinWorlds(t, n)
	j.twin = twin
	errs := jobtest.Each(n, func(r int) error {
		var err error
		j.es[r], j.pools[r], err = start(ws[r], r, Config{}, reg)
		return err
	})
	return j, errors.Join(errs...)
}

// TestBadSpawns: unknown functions, oversize args, ranks outside the
// world and bad ranges fail at the caller with their sentinels.
func TestBadSpawns(t *testing.T) {
	var f Func
	var l Loop
	j := newJob(t, 2, Config{MaxArgs: 16}, func(rank int, p *Pool) {
		x := must(p.Register("f", func(context.Context, *T, []byte) error { return nil }))
		y := must(p.RegisterLoop("l", func(context.Context, *T, int64) error { return nil }))
		if rank == 0 {
			f, l = x, y
		}
	})
	ctx := testCtx(t)
	errs := j.each(func(rank int, p *Pool) error {
		g, err := p.NewGroup()
		if err != nil {
			return err
		}
		if rank == 0 {
			for name, tc := range map[string]struct{ err, want error }{
				"zero Func":     {g.Spawn(Func{}, nil), ErrBadFunc},
				"forged Func":   {g.Spawn(Func{idx: 0, name: "g"}, nil), ErrBadFunc},
				"zero Loop":     {g.ParallelFor(0, 5, Loop{}), ErrBadFunc},
				"large args":    {g.Spawn(f, make([]byte, 17)), ErrTooLarge},
				"large remote":  {g.SpawnOn(1, f, make([]byte, 17)), ErrTooLarge},
				"rank -1":       {g.SpawnOn(-1, f, nil), comm.ErrBadRank},
				"rank 2":        {g.SpawnOn(2, f, nil), comm.ErrBadRank},
				"negative n":    {g.ParallelFor(0, -1, l), ErrBadRange},
				"past int64":    {g.ParallelFor(maxInt64, 2, l), ErrBadRange},
				"a good one":    {g.SpawnOn(1, f, make([]byte, 16)), nil},
				"an empty loop": {g.ParallelFor(3, 0, l), nil},
			} {
				if !errors.Is(tc.err, tc.want) || (tc.want == nil && tc.err != nil) {
					t.Errorf("%s: %v, want %v", name, tc.err, tc.want)
				}
			}
		}
		if err := g.Wait(ctx); err != nil {
			return err
		}
		if err := p.ParallelFor(ctx, 0, -5, l); !errors.Is(err, ErrBadRange) {
			t.Errorf("rank %d: ParallelFor of -5: %v, want ErrBadRange", rank, err)
		}
		return g.Wait(ctx)
	})
	for r, err := range errs {
		if !errors.Is(err, ErrDone) {
			t.Errorf("rank %d: second Wait: %v, want ErrDone", r, err)
		}
	}
}

// TestClose: a closed pool refuses new groups and spawns with ErrClosed,
// and a second Close says so.
func TestClose(t *testing.T) {
	var f Func
	j := newJob(t, 1, Config{}, func(_ int, p *Pool) {
		f = must(p.Register("f", func(context.Context, *T, []byte) error { return nil }))
	})
	p := j.pools[0]
	g := must(p.NewGroup())
	ctx := testCtx(t)
	if err := p.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := g.Spawn(f, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Spawn after Close: %v", err)
	}
	if _, err := p.NewGroup(); !errors.Is(err, ErrClosed) {
		t.Errorf("NewGroup after Close: %v", err)
	}
	if err := g.Wait(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("Wait after Close: %v", err)
	}
	if err := p.Close(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
}
