package main

import (
	"flag"
	"fmt"

	"github.com/plexus-hpc/plexus/internal/survey"
)

var surveyCmd = &command{
	name:    "tree survey",
	summary: "check best against every other tree on every shipped machine",
	usage: `tree survey [--data DIR] [--only NAME] [--spread N] [--exact N] [--seed N]

Loads every machine shipped in the data directory (Smelt's measured 2x10,
the complete Barrelfish-era matrices, every hwloc topology with estimated
costs) and, for every operation and every round-robin group size (a spread
of --spread sizes above 64 CPUs), compares Best with the best static tree
and with Smelt's adaptive tree. Prints a markdown table per machine and op
(mean and worst ratio; below 1 means Best is faster) and, with --exact N,
Best's broadcast against the exact optimum on N random 8-CPU groups per
machine. Fails if Best is ever slower than another tree. Takes minutes.`,
	flags: func() *flag.FlagSet { return new(surveyOpts).flagSet() },
	run:   runSurvey,
}

type surveyOpts struct {
	data, only    string
	spread, exact int
	seed          uint64
}

func (o *surveyOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("tree survey", flag.ContinueOnError)
	fs.StringVar(&o.data, "data", "data", "the repository's data `DIR`")
	fs.StringVar(&o.only, "only", "", "survey only machines whose name contains `NAME`")
	fs.IntVar(&o.spread, "spread", 12, "`N` group sizes surveyed on machines over 64 CPUs")
	fs.IntVar(&o.exact, "exact", 10, "`N` random 8-CPU groups per machine checked against the exact optimum")
	fs.Uint64Var(&o.seed, "seed", 1, "seed `N` for the random groups")
	return fs
}

func runSurvey(c *cli, args []string) error {
	o := new(surveyOpts)
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	if o.spread < 2 || o.exact < 0 {
		return usagef("--spread must be at least 2 and --exact not negative")
	}
	var p *progress
	opt := survey.Options{Spread: o.spread, ExactGroups: o.exact, Seed: o.seed, Only: o.only,
		Progress: func(machine string, done, total int) {
			if done == 0 {
				if p != nil {
					p.finish()
				}
				p = newProgress(c.stderr, machine)
			}
			p.update(done, total)
		}}
	points, _, err := survey.Report(c.stdout, o.data, opt)
	if p != nil {
		p.finish()
	}
	if err != nil {
		return err
	}
	if s := survey.Summarize(points); s.Violations > 0 {
		return fmt.Errorf("best was slower than another tree in %d of %d cases", s.Violations, s.Points)
	}
	return nil
}
