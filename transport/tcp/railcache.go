package tcp

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/plexus-hpc/plexus/rail"
	"github.com/plexus-hpc/plexus/transport/multirail"
)

// The profile file as a cache: rails sampled at first contact are added
// to Config.RailProfiles, each named by its local address and its peer's
// address without the port (a listening port is one job's), so that the
// next job between the same two interfaces finds it (findProfile) and
// skips the sampling. Ranks of one host may add at the same moment; each
// writes a whole new file and renames it into place, so the file is
// always one writer's whole version, and what a concurrent writer added
// may be lost: the next job samples those rails again and adds them.

// cache adds the rails sampled at first contact to the profile file, if
// Config.RailProfiles names one; a failure only costs the next job a
// sampling, so it is logged, not returned.
func (rs *railSet) cache(peer int, pairs []multirail.Addr, profiles []rail.Profile) {
	path := rs.e.cfg.RailProfiles
	if path == "" {
		return
	}
	log := rs.e.cfg.Logger.With("rank", rs.e.cfg.Rank, "peer", peer, "file", path)
	if n, err := cacheProfiles(path, pairs, profiles); err != nil {
		log.Warn("tcp: rail profiles not cached", "err", err)
	} else {
		log.Debug("tcp: rail profiles cached", "rails", len(pairs), "in file", n)
	}
}

// cacheProfiles adds profiles, the rails of pairs in order, to the
// profile file at path, replacing the entries of the same rails, and
// returns the file's new number of rails. A file that exists and is not
// a profile file is left alone (an error), as a user's file would be.
func cacheProfiles(path string, pairs []multirail.Addr, profiles []rail.Profile) (int, error) {
	f, err := readProfiles(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f = rail.File{Local: hostOf(pairs[0].Local)}
	case err != nil:
		return 0, fmt.Errorf("tcp: caching rail profiles in %s: %w", path, err)
	}
	f.Rails = mergeProfiles(f.Rails, pairs, profiles)
	var b bytes.Buffer
	if err := rail.WriteFile(&b, f); err != nil {
		return 0, err
	}
	if err := writeAtomic(path, b.Bytes()); err != nil {
		return 0, fmt.Errorf("tcp: caching rail profiles in %s: %w", path, err)
	}
	return len(f.Rails), nil
}

// mergeProfiles returns have with the rails of pairs replaced by, or
// added as, profiles, each named "local>remote host". It is pure.
func mergeProfiles(have []rail.Profile, pairs []multirail.Addr, profiles []rail.Profile) []rail.Profile {
	out := make([]rail.Profile, 0, len(have)+len(profiles))
	fresh := map[string]bool{}
	for i, p := range pairs {
		q := profiles[i]
		q.Name = cacheName(p)
		fresh[q.Name] = true
		out = append(out, q)
	}
	for _, q := range have {
		l, r, ok := strings.Cut(q.Name, ">")
		if !ok || !fresh[hostOf(l)+">"+hostOf(r)] {
			out = append(out, q)
		}
	}
	return out
}

// cacheName is a rail's name in the cache: its addresses without ports.
func cacheName(p multirail.Addr) string { return hostOf(p.Local) + ">" + hostOf(p.Remote) }

// writeAtomic replaces the file at path with b: written beside it under
// another name, then renamed, so that a reader never sees half a file.
func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
