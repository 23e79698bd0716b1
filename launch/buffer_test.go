package launch

import "github.com/plexus-hpc/plexus/internal/syncbuf"

// lockedBuffer lets a test read what ranks (or a logger) write while Run
// still runs.
type lockedBuffer = syncbuf.Buffer
