package jobtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// clusterLock is the file a test holds locked while it uses the
// namespace cluster (testdata/cluster). The cluster's hosts are
// machine-wide, and `go test ./...` runs packages at once: one package's
// test bringing the cluster up or down (which first clears leftovers)
// would kill another package's ranks on it.
var clusterLock = filepath.Join(os.TempDir(), "plexus-cluster.lock")

// LockCluster takes the machine's namespace cluster for the rest of t,
// waiting while a test of another package holds it. Call it before
// bringing the cluster up, so that its Cleanup, registered first, runs
// after the cluster's own. A test must take it at most once.
func LockCluster(t testing.TB) {
	t.Helper()
	f, err := os.OpenFile(clusterLock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatalf("namespace cluster lock: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("namespace cluster lock %s: %v", clusterLock, err)
	}
	t.Cleanup(func() { f.Close() }) // closing the file releases the lock
}

// ClusterUp brings up n hosts of the namespace cluster with script
// (testdata/cluster/cluster.sh) for t, holding LockCluster, and takes
// them down after t; it skips where this machine cannot make them (not
// root, no iproute2, -short).
func ClusterUp(t testing.TB, script string, n int) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no namespace cluster")
	}
	if os.Geteuid() != 0 {
		t.Skip("the namespace cluster (testdata/cluster/cluster.sh) needs root")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("the namespace cluster needs ip (iproute2)")
	}
	LockCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if b, err := exec.CommandContext(ctx, script, "up", fmt.Sprint(n)).CombinedOutput(); err != nil {
		exec.Command(script, "down").Run()
		t.Skipf("cannot make namespace hosts here: %v\n%s", err, b)
	}
	t.Cleanup(func() {
		if b, err := exec.Command(script, "down").CombinedOutput(); err != nil {
			t.Errorf("cluster.sh down: %v\n%s", err, b)
		}
	})
}
