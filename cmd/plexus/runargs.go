package main

import (
	"flag"
	"strings"
)

// strayFlags refuses a flag of plexus run's own after the program unless
// "--" ended run's flags: "plexus run ./app -n 2" would otherwise start
// one rank and hand -n 2 to the app, the mistake of someone used to
// mpirun, which reads its options anywhere. The error shows both ways to
// write what was meant.
func strayFlags(fs *flag.FlagSet, args []string) error {
	ours := len(args) - fs.NArg() // the arguments run's flags took
	if ours > 0 && args[ours-1] == "--" {
		return nil
	}
	prog, rest := fs.Arg(0), fs.Args()[1:]
	var moved, left []string
	var names []string
	for i := 0; i < len(rest); i++ {
		name, hasValue := ownFlag(fs, rest[i])
		if name == "" {
			left = append(left, rest[i])
			continue
		}
		names = append(names, rest[i])
		moved = append(moved, rest[i])
		if !hasValue && i+1 < len(rest) {
			i++
			moved = append(moved, rest[i])
		}
	}
	if len(names) == 0 {
		return nil
	}
	before := args[:ours]
	return usagef("%s after the program %s would be passed to it, not read by plexus run; write\n"+
		"  plexus run %s\n"+
		"to give it to plexus run, or end plexus run's flags with -- to pass it to the program:\n"+
		"  plexus run %s",
		strings.Join(names, ", "), prog,
		shellJoin(concat(before, moved, []string{prog}, left)),
		shellJoin(concat(before, []string{"--", prog}, rest)))
}

// ownFlag returns the name of the flag of fs that arg sets ("" when arg is
// not one) and whether arg holds its value ("-n=2").
func ownFlag(fs *flag.FlagSet, arg string) (string, bool) {
	name, ok := strings.CutPrefix(arg, "-")
	if !ok {
		return "", false
	}
	name = strings.TrimPrefix(name, "-")
	name, _, hasValue := strings.Cut(name, "=")
	if name == "" || fs.Lookup(name) == nil {
		return "", false
	}
	return name, hasValue
}

func concat(parts ...[]string) []string {
	var all []string
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

// shellJoin joins words for a command line to copy, quoting those a shell
// would split or expand.
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = w
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
