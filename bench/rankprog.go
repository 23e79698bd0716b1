package bench

import (
	"context"
	"debug/buildinfo"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// The Plexus side of a benchmark is a rank program (packages p2prank and
// gasrank). The plexus binary carries them as "plexus bench p2p rank" and
// "plexus bench gas rank" and passes itself as P2PConfig.Rank or
// GasConfig.Rank, so that a host needs nothing but that binary; without a
// Rank, the program is built from the module's source with the Go
// toolchain, as the library's own tests do.

// ErrNoRank reports that no rank program was given and none could be
// built: no Go toolchain, or not inside the plexus module.
var ErrNoRank = errors.New("bench: no rank program")

// profile is the CPU profile the plexus binary is built with (go build
// uses a main package's default.pgo); a rank program built from source
// uses it too, so both run the same optimised code.
const profile = "cmd/plexus/default.pgo"

// rankCommand returns given when it is set; else it builds pkg (a main
// package of the module, such as ./bench/p2pprog) from *src into dir, with
// profile unless noPGO, and returns the program. An empty *src is set to
// the module's directory, found with go list.
func rankCommand(ctx context.Context, given []string, src *string, pkg, dir string, noPGO bool) ([]string, error) {
	if len(given) > 0 {
		return given, nil
	}
	if *src == "" {
		var err error
		if *src, err = moduleDir(ctx); err != nil {
			return nil, err
		}
	}
	bin := filepath.Join(dir, filepath.Base(pkg))
	pgo := "-pgo=" + filepath.Join(*src, profile)
	if noPGO {
		pgo = "-pgo=off"
	}
	cmd := exec.CommandContext(ctx, "go", "build", pgo, "-o", bin, pkg)
	cmd.Dir = *src
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("bench: building %s: %w\n%s", pkg, err, out)
	}
	return []string{bin}, nil
}

// builtWithPGO reports whether prog, a path or a name on the PATH, is a Go
// program built with profile-guided optimisation (its build settings name
// a profile); false when it cannot tell.
func builtWithPGO(prog string) bool {
	path, err := exec.LookPath(prog)
	if err != nil {
		return false
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-pgo" && s.Value != "" {
			return true
		}
	}
	return false
}

// moduleDir finds the plexus module's source from the working directory.
func moduleDir(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-f", "{{.Dir}}", "github.com/plexus-hpc/plexus/bench").Output()
	if err != nil {
		return "", fmt.Errorf("%w: building it from source needs the Go toolchain and the plexus module as the working directory (go list: %v)", ErrNoRank, err)
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}
