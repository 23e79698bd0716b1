package launch

import (
	"context"
	"io"
	"net"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestReadHostfile(t *testing.T) {
	in := "# cluster\nn1 slots=2\n\nn2   # one slot\nn3 slots=1\n"
	got, err := ReadHostfile(strings.NewReader(in))
	if want := []string{"n1", "n1", "n2", "n3"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ReadHostfile = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []string{"n1 slots=0\n", "n1 slots=x\n", "n1 cpus=2\n", "-V\n", "-oProxyCommand=x slots=2\n"} {
		if _, err := ReadHostfile(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("ReadHostfile(%q): %v; want an error naming line 1", bad, err)
		}
	}
	if _, err := ReadHostfile(strings.NewReader("n1 slots=0\n")); err == nil || !strings.Contains(err.Error(), `"slots=0": want 1 to`) {
		t.Errorf("ReadHostfile(slots=0): %v; want the range of slots", err)
	}
}

func TestPlace(t *testing.T) {
	for _, c := range []struct {
		n                    int
		hosts                []string
		want                 []string
		localRank, localSize []int
		distinct             []string
	}{
		{3, nil, []string{"", "", ""}, []int{0, 1, 2}, []int{3, 3, 3}, nil},
		{3, []string{"a", "b", "a", "c"}, []string{"a", "b", "a"}, []int{0, 0, 1}, []int{2, 1, 2}, []string{"a", "b"}},
		{4, []string{"a", "b"}, []string{"a", "a", "b", "b"}, []int{0, 1, 0, 1}, []int{2, 2, 2, 2}, []string{"a", "b"}},
		{5, []string{"localhost", "b"}, []string{"", "", "", "b", "b"}, []int{0, 1, 2, 0, 1}, []int{3, 3, 3, 2, 2},
			[]string{displayHost(""), "b"}},
	} {
		p, err := place(c.n, c.hosts)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(p.hosts, c.want) || !reflect.DeepEqual(p.localRank, c.localRank) ||
			!reflect.DeepEqual(p.localSize, c.localSize) || !reflect.DeepEqual(p.distinct, c.distinct) {
			t.Errorf("place(%d, %q) = %+v", c.n, c.hosts, p)
		}
		host, _, err := net.SplitHostPort(p.root)
		if err != nil || p.remoteRoot != (c.want[0] != "") || (c.want[0] != "" && host != c.want[0]) {
			t.Errorf("place(%d, %q): root %q, remote %v", c.n, c.hosts, p.root, p.remoteRoot)
		}
	}
}

// TestRunRemote runs rank 1 on a pretend remote host through a fake ssh
// that runs the remote shell command here: the secret must travel on
// standard input, not on the command line.
func TestRunRemote(t *testing.T) {
	if _, err := net.LookupHost(displayHost("")); err != nil {
		t.Skipf("this host's name does not resolve: %v", err)
	}
	var out, errOut lockedBuffer
	j := helperJob(2, "join")
	j.Hosts = []string{"localhost", "elsewhere"}
	j.SSH = []string{"sh", "-c", `case "$2" in *PLEXUS_SECRET=*) echo secret on the command line >&2; exit 9;; esac; exec sh -c "$2"`, "fakessh"}
	j.Stdout, j.Stderr = &out, &errOut
	if err := j.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v\n%s", err, errOut.String())
	}
	for _, want := range []string{"[0] rank 0 of 2 launcher plexus local 0/1", "[1] rank 1 of 2 launcher plexus local 0/1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	wd, _ := os.Getwd()
	if s := (&session{job: j, p: placement{hosts: []string{"", "h"}, localRank: []int{0, 0}, localSize: []int{1, 1}}}).remoteShell(1); !strings.Contains(s, shellQuote(wd)) {
		t.Errorf("remote command does not change to %s: %s", wd, s)
	}
}

func TestShellQuote(t *testing.T) {
	if got, want := shellQuote(`it's $HOME`), `'it'\''s $HOME'`; got != want {
		t.Errorf("shellQuote = %s, want %s", got, want)
	}
}

// TestSSHEndsOptions checks that the default ssh command ends its options
// before the host, so no host name is read as one.
func TestSSHEndsOptions(t *testing.T) {
	s := &session{job: Job{N: 2, Prog: "x"}, p: placement{hosts: []string{"", "h"}, localRank: []int{0, 0}, localSize: []int{1, 1}}}
	args := s.command(1).Args
	if i := slices.Index(args, "h"); i < 1 || args[i-1] != "--" {
		t.Errorf("ssh command %q: want \"--\" just before the host", args)
	}
}

// TestRemoteShellCommand checks that a remote shell command of the job's
// own (plexus run --rsh) is run as CMD HOST SHELLCMD, the secret on its
// standard input only, and that an empty one is refused.
func TestRemoteShellCommand(t *testing.T) {
	j := Job{N: 2, Prog: "x", SSH: []string{"agent", "-v"}}
	s := &session{job: j, secret: "s3cret", p: placement{hosts: []string{"", "h2"}, localRank: []int{0, 0}, localSize: []int{1, 1}}}
	cmd := s.command(1)
	if want := []string{"agent", "-v", "h2", s.remoteShell(1)}; !slices.Equal(cmd.Args, want) {
		t.Errorf("command %q, want %q", cmd.Args, want)
	}
	if strings.Contains(strings.Join(cmd.Args, " "), "s3cret") {
		t.Errorf("secret on the command line: %q", cmd.Args)
	}
	if in, _ := io.ReadAll(cmd.Stdin); string(in) != "s3cret\n" {
		t.Errorf("standard input %q, want the secret", in)
	}
	j.SSH = []string{}
	if err := j.Validate(); err == nil || !strings.Contains(err.Error(), "empty remote shell command") {
		t.Errorf("Validate with an empty SSH: %v", err)
	}
}
