// Command plexus shows machine models and the broadcast, reduction and
// barrier trees Smelt's generator builds on them. Run "plexus help".
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// Exit statuses: a usage error (bad command, flag or flag value) is 2, as
// for the flag package and most Unix tools; a failure while working is 1.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// command is one subcommand. Its run function parses its own flags and
// returns a usageError for bad input, any other error for a failure.
type command struct {
	name    string // as typed, e.g. "tree compare"
	summary string
	usage   string // synopsis and description after "usage: plexus "
	// flags returns the command's flag set, for help; run builds its own.
	flags func() *flag.FlagSet
	run   func(c *cli, args []string) error
}

// cli is what a subcommand writes to.
type cli struct {
	stdout, stderr io.Writer
	cmd            *command
}

// commands in help order; a command whose name has two words is found
// before the one-word command it extends.
var commands []*command

// registered holds the commands that other files add from their own init
// with addCommand, so that a new subcommand touches only its own file; help
// lists them after the core ones, in the order of their names.
var registered []*command

func init() {
	commands = []*command{machineCmd, measureCmd, treeCmd, compareCmd, surveyCmd, benchCollCmd, benchP2PCmd, benchGasCmd, tourCmd, runCmd}
}

// addCommand registers c; call it from an init function.
func addCommand(c *command) { registered = append(registered, c) }

// allCommands is every command in help order.
func allCommands() []*command {
	extra := append([]*command(nil), registered...)
	sort.Slice(extra, func(i, j int) bool { return extra[i].name < extra[j].name })
	return append(append([]*command(nil), commands...), extra...)
}

// usageError marks an error in what the user typed: run prints the
// command's usage after it and exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// run is main without the process: tests call it in-process.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeHelp(stderr)
		return exitUsage
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		return runHelp(args[1:], stdout, stderr)
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = append([]string{"version"}, args[1:]...)
	}
	cmd, rest := lookup(args)
	if cmd == nil {
		unknownCommand(stderr, "plexus", args)
		return exitUsage
	}
	c := &cli{stdout: stdout, stderr: stderr, cmd: cmd}
	err := cmd.run(c, rest)
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK // the flag package has printed the usage
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "plexus %s: %v\n", cmd.name, err)
		fmt.Fprintf(stderr, "usage: plexus %s\nRun 'plexus help %s' for details.\n", firstLine(cmd.usage), cmd.name)
		return exitUsage
	}
	fmt.Fprintf(stderr, "plexus %s: %v\n", cmd.name, err)
	return exitFailure
}

// lookup finds the longest command name that prefixes args.
func lookup(args []string) (*command, []string) {
	for _, c := range allCommands() {
		words := strings.Fields(c.name)
		if len(args) >= len(words) && len(words) == 2 && args[0] == words[0] && args[1] == words[1] {
			return c, args[2:]
		}
	}
	for _, c := range allCommands() {
		if c.name == args[0] {
			return c, args[1:]
		}
	}
	return nil, nil
}

func runHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		writeHelp(stdout)
		return exitOK
	}
	if len(args) == 1 && args[0] == "help" {
		fmt.Fprint(stdout, helpUsage)
		return exitOK
	}
	cmd, rest := lookup(args)
	if cmd == nil && len(args) == 1 && len(subcommands(args[0])) > 0 {
		writeGroupHelp(stdout, args[0])
		return exitOK
	}
	if cmd == nil || len(rest) > 0 {
		unknownCommand(stderr, "plexus help", args)
		return exitUsage
	}
	writeUsage(stdout, cmd, cmd.flags())
	return exitOK
}

const helpUsage = `usage: plexus help [COMMAND]

Without a command, lists the commands; with one, such as "tree compare",
shows its usage and flags, as "plexus COMMAND -h" does.
`

func writeUsage(w io.Writer, cmd *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: plexus %s\n\nflags:\n", cmd.usage)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// parse parses a command's flags. Parse errors become usage errors (run
// prints them once, with the synopsis); -h prints the full usage to
// stdout. Positional arguments are not accepted by any command.
func (c *cli) parse(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		writeUsage(c.stdout, c.cmd, fs)
		return err
	case err != nil:
		return &usageError{err.Error()}
	case fs.NArg() > 0:
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

func writeHelp(w io.Writer) {
	fmt.Fprint(w, "plexus: machine models and Smelt's communication trees\n\nusage: plexus COMMAND [FLAGS]\n\ncommands:\n")
	for _, c := range allCommands() {
		fmt.Fprintf(w, "  %-16s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "  help [COMMAND]   show a command's usage and flags\n\n"+modelHelp+
		"\nRun 'plexus help COMMAND' for a command's flags.\n")
}

const modelHelp = `Commands that need a machine model take one of:
  (nothing)         this machine, discovered from /sys
  --hwloc FILE      an hwloc XML topology (lstopo --of xml)
  --model DIR|FILE  a Plexus model file, a Smelt machinedb directory, or a
                    Barrelfish matrix (send_<machine>_<variant> or DIR:machine_variant)
Models without measured send/receive costs get costs estimated from the
topology (topo.DefaultEstimate()), and the output says so.
`

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// unknownCommand says what is wrong with args, which name no command: a
// group (bench, kv, ...) without one of its subcommands gets the list of
// them, anything else the list of all commands.
func unknownCommand(stderr io.Writer, who string, args []string) {
	subs := subcommands(args[0])
	switch {
	case len(subs) > 0 && len(args) == 1:
		fmt.Fprintf(stderr, "%s: %s needs a subcommand: %s\n", who, args[0], strings.Join(subs, ", "))
	case len(subs) > 0:
		fmt.Fprintf(stderr, "%s: unknown command %q; %s's subcommands are %s\n", who, args[0]+" "+args[1], args[0], strings.Join(subs, ", "))
	case who == "plexus":
		fmt.Fprintf(stderr, "%s: unknown command %q\n\n", who, args[0])
		writeHelp(stderr)
	default:
		fmt.Fprintf(stderr, "%s: unknown command %q\n", who, strings.Join(args, " "))
	}
	if len(subs) > 0 {
		fmt.Fprintf(stderr, "Run 'plexus help' for every command.\n")
	}
}

// subcommands lists the second words of the commands whose first word is
// group, in help's order.
func subcommands(group string) []string {
	var subs []string
	for _, c := range allCommands() {
		if first, second, ok := strings.Cut(c.name, " "); ok && first == group {
			subs = append(subs, second)
		}
	}
	return subs
}

// writeGroupHelp lists the commands of group with their summaries.
func writeGroupHelp(w io.Writer, group string) {
	fmt.Fprintf(w, "plexus %s: its commands (plexus help %s COMMAND for one)\n\n", group, group)
	for _, c := range allCommands() {
		if first, _, ok := strings.Cut(c.name, " "); ok && first == group {
			fmt.Fprintf(w, "  %-16s %s\n", c.name, c.summary)
		}
	}
}
