// Package rawsock takes a TCP socket out of Go's netpoller, on Linux.
//
// Go puts every socket it makes in its epoll set, and while anything in
// the process waits in the netpoller an idle thread sleeps in
// epoll_wait, woken by every packet on every socket: also on a socket
// that a goroutine reads by polling and nobody waits for. A polling
// reader avoids those wake-ups by reading a duplicate of the descriptor
// that is in no epoll set (Detach), and waits, when it must, in poll(2)
// (Wait), which wakes only the caller's thread.
//
// Elsewhere than Linux the package is empty: callers keep their
// net.Conn there.
package rawsock
