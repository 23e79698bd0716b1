package launch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Job is what plexus run starts: N ranks of one program. Fill it in, call
// Validate, then Run.
type Job struct {
	N    int      // ranks, at least 1
	Prog string   // the program, found in $PATH like a shell does
	Args []string // its arguments
	// Hosts lists where ranks run, one entry per slot: rank r runs on
	// Hosts[r] when N <= len(Hosts), else the hosts get equal contiguous
	// blocks of ranks. Empty means this host. Other hosts are reached
	// with SSH. Validate refuses empty names, names that start with '-'
	// and names with blanks or control characters (ErrBadHost).
	Hosts []string
	// Timeout ends the job, as a failure, after this long; 0 means never.
	Timeout time.Duration
	// Grace is how long a rank has between SIGTERM and SIGKILL when the
	// job is ended; 0 means 2 seconds.
	Grace time.Duration
	// Stdout and Stderr receive the ranks' output, every line prefixed
	// with "[rank] "; nil discards it.
	Stdout, Stderr io.Writer
	// Signals, when not nil, are forwarded to every running rank.
	Signals <-chan os.Signal
	// Env is the environment ranks start from; nil means os.Environ().
	// The PLEXUS_* variables Run sets are dropped from it and set anew.
	Env []string
	// SSH is the command that runs a rank on another host (plexus run
	// --rsh, Open MPI's plm_rsh_agent): Run starts SSH HOST SHELLCMD, where
	// SHELLCMD is one POSIX shell command that reads the job secret from
	// standard input, goes to this directory if the host has it and
	// execs the program with the job's PLEXUS_* variables. Nil means
	// ssh -o BatchMode=yes --; an empty, non-nil SSH is an error.
	SSH []string
	// Bind says how ranks on this host are bound to CPUs; BindAuto, the
	// zero value, gives each an equal share of whole cores when there are
	// no more local ranks than cores, and leaves them unbound otherwise.
	Bind Bind
	// Rails, if not empty, is passed to every rank, on every host, as
	// PLEXUS_RAILS: the networks (CIDR, comma-separated) whose addresses
	// carry extra connections between ranks on different hosts
	// (plexus run --rails). Empty leaves PLEXUS_RAILS as the environment
	// has it.
	Rails string
}

// Validate reports what is wrong with a Job, as an error that names the
// field.
func (j *Job) Validate() error {
	switch {
	case j.N < 1 || j.N > maxRanks:
		return fmt.Errorf("launch: %d ranks; want 1 to %d", j.N, maxRanks)
	case j.Prog == "":
		return errors.New("launch: no program to run")
	case !j.Bind.valid():
		return fmt.Errorf("launch: binding %q: want %q, %q or auto (empty)", j.Bind, BindCore, BindNone)
	case j.Timeout < 0 || j.Grace < 0:
		return errors.New("launch: negative timeout or grace period")
	case j.SSH != nil && (len(j.SSH) == 0 || j.SSH[0] == ""):
		return errors.New("launch: empty remote shell command (Job.SSH)")
	}
	for i, h := range j.Hosts {
		if err := checkHost(h); err != nil {
			return fmt.Errorf("%w (host %d of the job)", err, i+1)
		}
	}
	return nil
}

// ExitError is Run's error when a rank failed: the first rank that ended
// with a non-zero status or a signal, and what happened to the others.
type ExitError struct {
	Rank   int
	Err    error // from os/exec: an *exec.ExitError, or why the rank did not start
	Killed []int // ranks plexus run ended because of the failure
}

func (e *ExitError) Error() string {
	s := fmt.Sprintf("launch: rank %d failed: %v", e.Rank, e.Err)
	if len(e.Killed) > 0 {
		s += "; ended ranks " + rankList(e.Killed)
	}
	return s
}

func (e *ExitError) Unwrap() error { return e.Err }

// ErrTimeout is wrapped when Job.Timeout ended the job.
var ErrTimeout = errors.New("launch: job timed out")

// Run starts the ranks, each with PLEXUS_RANK, PLEXUS_SIZE,
// PLEXUS_LOCAL_RANK, PLEXUS_LOCAL_SIZE, PLEXUS_JOB (fresh and random),
// PLEXUS_ROOT (rank 0's bootstrap address), PLEXUS_SECRET (32 random bytes
// in hex), for ranks on this host PLEXUS_HOST_CPUS (how many CPUs Run
// may use) and, for jobs on several hosts, PLEXUS_HOSTS. It waits for all
// of them. When a rank fails, the job times out or ctx ends, the other
// ranks get SIGTERM, and SIGKILL after the grace period. A rank that
// exited 0 is never a failure, whoever else is still running.
func (j Job) Run(ctx context.Context) error {
	if err := j.Validate(); err != nil {
		return err
	}
	if j.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, j.Timeout, fmt.Errorf("%w after %v", ErrTimeout, j.Timeout))
		defer cancel()
	}
	p, err := place(j.N, j.Hosts)
	if err != nil {
		return err
	}
	cores, coresErr := usableCores()
	cpus, err := p.bind(j.Bind, cores, coresErr)
	if err != nil {
		if p.rootLn != nil {
			p.rootLn.Close()
		}
		return err
	}
	s := &session{job: j, p: p, cpus: cpus, hostCPUs: countCPUs(cores), jobID: randomHex(8), secret: randomHex(32), exits: make(chan exit, j.N)}
	return s.run(ctx)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails on supported platforms
	return hex.EncodeToString(b)
}

func rankList(ranks []int) string {
	s := make([]string, len(ranks))
	for i, r := range ranks {
		s[i] = strconv.Itoa(r)
	}
	return strings.Join(s, ",")
}

// jobVars are the variables Run sets; inherited values are dropped, so
// that a plexus run inside a rank of another starts a job of its own.
var jobVars = []string{"PLEXUS_RANK", "PLEXUS_SIZE", "PLEXUS_LOCAL_RANK", "PLEXUS_LOCAL_SIZE",
	"PLEXUS_JOB", "PLEXUS_ROOT", "PLEXUS_SECRET", "PLEXUS_HOSTS", "PLEXUS_ROOT_FD", "PLEXUS_HOST_CPUS"}

// baseEnv is the environment ranks and ssh start from, without jobVars.
func (s *session) baseEnv() []string {
	base := s.job.Env
	if base == nil {
		base = os.Environ()
	}
	var env []string
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(jobVars, name) {
			env = append(env, kv)
		}
	}
	return env
}

// plexusEnv is what rank r is told, without the secret: a rank on
// another host reads that from its standard input, so that it appears on
// no command line.
func (s *session) plexusEnv(r int) []string {
	env := []string{
		"PLEXUS_RANK=" + strconv.Itoa(r), "PLEXUS_SIZE=" + strconv.Itoa(s.job.N),
		"PLEXUS_LOCAL_RANK=" + strconv.Itoa(s.p.localRank[r]), "PLEXUS_LOCAL_SIZE=" + strconv.Itoa(s.p.localSize[r]),
		"PLEXUS_JOB=" + s.jobID, "PLEXUS_ROOT=" + s.p.root,
	}
	if s.p.distinct != nil {
		env = append(env, "PLEXUS_HOSTS="+strings.Join(s.p.distinct, ","))
	}
	if s.job.Rails != "" {
		env = append(env, "PLEXUS_RAILS="+s.job.Rails)
	}
	return env
}

// command builds the process for rank r: the program itself, or ssh.
func (s *session) command(r int) *exec.Cmd {
	var cmd *exec.Cmd
	if h := s.p.hosts[r]; h == "" {
		cmd = exec.Command(s.job.Prog, s.job.Args...)
		cmd.Env = append(append(s.baseEnv(), s.plexusEnv(r)...), "PLEXUS_SECRET="+s.secret)
		if s.hostCPUs > 0 {
			cmd.Env = append(cmd.Env, "PLEXUS_HOST_CPUS="+strconv.Itoa(s.hostCPUs))
		}
		if f := s.rootFile(r); f != nil {
			cmd.ExtraFiles = []*os.File{f} // fd 3 in the child
			cmd.Env = append(cmd.Env, "PLEXUS_ROOT_FD=3")
		}
	} else {
		ssh := s.job.SSH
		if ssh == nil {
			// "--" ends ssh's options, so the host is never read as one
			// (Validate refuses such names too).
			ssh = []string{"ssh", "-o", "BatchMode=yes", "--"}
		}
		cmd = exec.Command(ssh[0], append(ssh[1:], h, s.remoteShell(r))...)
		cmd.Env = s.baseEnv()
		cmd.Stdin = strings.NewReader(s.secret + "\n")
	}
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = s.grace()
	return cmd
}

// remoteShell is the POSIX shell command a remote rank runs: read the
// secret from standard input, go to the same directory if it exists there,
// and exec the program with the job's variables. Only the PLEXUS_*
// variables travel; the rest of the environment is the remote login's.
func (s *session) remoteShell(r int) string {
	var b strings.Builder
	b.WriteString("read -r PLEXUS_SECRET && export PLEXUS_SECRET && ")
	if wd, err := os.Getwd(); err == nil {
		b.WriteString("{ cd " + shellQuote(wd) + " 2>/dev/null || true; } && ")
	}
	b.WriteString("exec env")
	for _, kv := range s.plexusEnv(r) {
		b.WriteString(" " + shellQuote(kv))
	}
	for _, a := range append([]string{s.job.Prog}, s.job.Args...) {
		b.WriteString(" " + shellQuote(a))
	}
	return b.String()
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func (s *session) grace() time.Duration {
	if s.job.Grace > 0 {
		return s.job.Grace
	}
	return 2 * time.Second
}

// outputs returns the prefixing writers for rank r's two streams.
func (s *session) outputs(r int) (stdout, stderr *lineWriter) {
	w := func(dst io.Writer) *lineWriter {
		if dst == nil {
			dst = io.Discard
		}
		return newLineWriter(&s.outMu, dst, r)
	}
	return w(s.job.Stdout), w(s.job.Stderr)
}
