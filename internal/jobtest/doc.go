// Package jobtest holds the helpers that tests use to run a job: ranks
// in one process (TwinWorlds, Engines, OnWorlds) or processes under
// plexus run (Binaries), so that each package's tests do not
// write their own.
//
// Usage, in a test of a package built on am:
//
//	ws := jobtest.TwinWorlds(t, 3)
//	es, pools := jobtest.Engines(t, ws, start, nil)
//
// and, in a test of an example program:
//
//	var bin = jobtest.Binaries{Pkgs: []string{"../../cmd/plexus", "."}}
//	out := bin.RunPlexus(t, 3, nil, "task", "-n", "3000")
//
// It is internal: only this module's tests use it.
package jobtest
