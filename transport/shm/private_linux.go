package shm

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// openPrivate opens the existing segment file at path with flag (os.O_RDWR
// or os.O_RDONLY), without following a symbolic link and without blocking
// on a FIFO, and refuses it with ErrBadSegment, saying who owns it and
// its mode, unless it is private to this user: a regular file, owned by
// this process's effective uid, mode exactly 0600. The name is guessable from the job id, so another user
// may have made the file first, to read the job's frames or to truncate
// the segment under its ranks; and a file this user left open to others
// would let them do the same.
func openPrivate(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, fmt.Errorf("%w: a symbolic link, not a file this user created", ErrBadSegment)
	case err != nil:
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkPrivate(fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkPrivate is openPrivate's test of what fstat said of the file.
func checkPrivate(fi fs.FileInfo) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%w: no owner in the file's status", ErrBadSegment)
	}
	uid, mode := int(st.Uid), st.Mode&0o7777
	why := ""
	switch {
	case !fi.Mode().IsRegular():
		why = "not a regular file"
	case uid != os.Geteuid():
		why = fmt.Sprintf("owned by another user, not uid %d", os.Geteuid())
	case mode != 0o600:
		why = "mode is not 0600: others may read or change it"
	default:
		return nil
	}
	return fmt.Errorf("%w: %s (owner uid %d, mode %#o, %v)", ErrBadSegment, why, uid, mode, fi.Mode())
}
