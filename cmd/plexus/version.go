package main

import (
	"flag"
	"fmt"
	"runtime/debug"
	"strings"
)

func init() { addCommand(versionCmd) }

var versionCmd = &command{
	name:    "version",
	summary: "print the version of plexus and the Go that built it",
	usage: `version

Prints the module version (or "devel" for a build from a checkout), the
commit it was built from with its date, and the Go version; --version
and -version do the same.`,
	flags: func() *flag.FlagSet { return flag.NewFlagSet("version", flag.ContinueOnError) },
	run:   runVersion,
}

func runVersion(c *cli, args []string) error {
	if err := c.parse(c.cmd.flags(), args); err != nil {
		return err
	}
	fmt.Fprintln(c.stdout, versionLine())
	return nil
}

// versionLine is what plexus version prints, from the build information
// the Go toolchain stamps into the binary.
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "plexus (no build information)"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, when, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "plexus %s", v)
	if rev != "" {
		fmt.Fprintf(&b, " (commit %.12s of %s%s)", rev, when, dirty)
	}
	fmt.Fprintf(&b, " %s", bi.GoVersion)
	return b.String()
}
