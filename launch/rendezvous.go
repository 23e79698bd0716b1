package launch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// The rendezvous file lets ranks on one host find rank 0 when the launcher
// (mpirun, srun) gives no bootstrap address or no secret. Rank 0 creates
// $TMPDIR/plexus-<job>.root with O_EXCL and mode 0600 and writes two lines:
// its bootstrap address and 32 random bytes in hex, from which every rank
// derives the job secret. Trust model: whoever can read the file can join
// the job, and only its owner (or root) can; they could equally ptrace the
// ranks, so the file adds no exposure. Readers refuse a file that is not a
// regular file owned by their own user with no group or other permissions,
// so another user cannot plant an address or a secret. The file is only
// visible on rank 0's host: multi-host jobs need PLEXUS_ROOT (or
// MASTER_ADDR and MASTER_PORT) and PLEXUS_SECRET.

// errUntrusted marks a rendezvous file that must not be believed; waiting
// longer would not help.
var errUntrusted = errors.New("launch: untrusted rendezvous file")

// errNotYet marks a rendezvous file that does not exist or is still being
// written.
var errNotYet = errors.New("launch: rendezvous file not ready")

// rendezvousPath names the job's file; the job id is reduced to characters
// that are safe in a file name.
func rendezvousPath(dir, job string) string {
	safe := strings.Map(func(r rune) rune {
		if r == '-' || r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, job)
	return filepath.Join(dir, "plexus-"+safe+".root")
}

// jobSecret derives the secret from the file's random value; the job id
// is mixed in so that one file's value keys only its own job.
func jobSecret(job string, random []byte) []byte {
	h := sha256.New()
	h.Write([]byte("plexus rendezvous secret\x00" + job + "\x00"))
	h.Write(random)
	return h.Sum(nil)
}

// publish creates the rendezvous file for rank 0 and returns the secret
// derived from it. A file left by a crashed earlier job of the same id and
// user is replaced; a file of another user is an error.
func publish(path, job, addr string, log *slog.Logger) ([]byte, error) {
	random := newNonce()
	content := addr + "\n" + hex.EncodeToString(random) + "\n"
	err := createExcl(path, content)
	if errors.Is(err, fs.ErrExist) {
		if _, _, rerr := readRendezvous(path); errors.Is(rerr, errUntrusted) {
			return nil, rerr
		}
		log.Info("launch: replacing stale rendezvous file", "path", path)
		os.Remove(path)
		err = createExcl(path, content)
	}
	if err != nil {
		return nil, fmt.Errorf("launch: rendezvous file: %w", err)
	}
	return jobSecret(job, random), nil
}

func createExcl(path, content string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	// One write, and readers accept only a file with both lines ended:
	// a reader racing the write sees errNotYet, never half an address.
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// readRendezvous returns rank 0's address and the random value from the
// file at path.
func readRendezvous(path string) (addr string, random []byte, err error) {
	f, err := openOwned(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, errNotYet
	}
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return "", nil, fmt.Errorf("launch: rendezvous file: %w", err)
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) != 3 || lines[2] != "" {
		return "", nil, errNotYet
	}
	random, err = hex.DecodeString(lines[1])
	if err != nil || len(random) != nonceLen || lines[0] == "" {
		return "", nil, errNotYet
	}
	return lines[0], random, nil
}
