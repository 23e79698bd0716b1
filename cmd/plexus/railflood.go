package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/signal"
	"time"
)

func init() { addCommand(railFloodCmd) }

var railFloodCmd = &command{
	name:    "rail flood",
	summary: "a bulk TCP flow on one link, to compete with a benchmark's traffic",
	usage: `rail flood --listen ADDR [--for DUR] | --to ADDR [--from IP] [--for DUR] | --fd N [--sink]

A competing flow for measurements over rails (plexus bench p2p --rails
between namespace hosts, issue 19's competing-flow case): --listen
accepts connections on ADDR and reads and discards what they send, until
--for has passed (default: until interrupted); --to connects to such a
listener, from --from if given (the local address of the rail to load),
and writes as fast as the link takes for --for (default 10s), then
prints the bytes sent and the rate. Both end early on an interrupt.
--fd runs one end of a flow on connected socket N, inherited from the
process that started this one (as plexus bench rail --compete does): it
writes once a byte arrives on standard input, or with --sink reads and
discards from the start, until the socket ends or standard input does.`,
	flags: func() *flag.FlagSet { return new(railFloodOpts).flagSet() },
	run:   runRailFlood,
}

type railFloodOpts struct {
	listen, to, from string
	dur              time.Duration
	fd               int
	sink             bool
}

func (o *railFloodOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("rail flood", flag.ContinueOnError)
	fs.StringVar(&o.listen, "listen", "", "accept flows on `ADDR` (host:port) and discard them")
	fs.StringVar(&o.to, "to", "", "send a flow to the listener at `ADDR` (host:port)")
	fs.StringVar(&o.from, "from", "", "local `IP` to send from (the rail to load)")
	fs.DurationVar(&o.dur, "for", 0, "how long (`DUR`); 0: until interrupted with --listen, 10s with --to")
	fs.IntVar(&o.fd, "fd", 0, "run one end of a flow on the inherited connected socket `N` (3 or more)")
	fs.BoolVar(&o.sink, "sink", false, "with --fd, read and discard rather than write")
	return fs
}

func runRailFlood(c *cli, args []string) error {
	o := new(railFloodOpts)
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	switch {
	case o.fd != 0 && (o.listen != "" || o.to != "" || o.dur != 0):
		return usagef("--fd takes no --listen, --to or --for")
	case o.fd != 0 && o.fd < 3:
		return usagef("--fd %d: want an inherited descriptor, 3 or more", o.fd)
	case o.fd != 0:
		return floodFD(o.fd, o.sink, os.Stdin)
	case o.sink:
		return usagef("--sink goes with --fd")
	case (o.listen == "") == (o.to == ""):
		return usagef("give one of --listen, --to and --fd")
	case o.dur < 0:
		return usagef("--for %v: want a duration of zero or more", o.dur)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if o.listen != "" {
		return floodSink(ctx, c, o.listen, o.dur)
	}
	if o.dur == 0 {
		o.dur = 10 * time.Second
	}
	return floodSource(ctx, c, o.to, o.from, o.dur)
}

// floodSink accepts flows on addr and discards them until d has passed
// (d zero: until ctx ends).
func floodSink(ctx context.Context, c *cli, addr string, d time.Duration) error {
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", addr, err)
	}
	context.AfterFunc(ctx, func() { ln.Close() })
	fmt.Fprintf(c.stdout, "listening on %s\n", ln.Addr())
	for {
		nc, err := ln.Accept()
		if err != nil {
			return nil // closed when ctx ended
		}
		stop := context.AfterFunc(ctx, func() { nc.Close() })
		go func() {
			defer stop()
			defer nc.Close()
			io.Copy(io.Discard, nc)
		}()
	}
}

// floodSource sends zeros to addr, from the local address from if set,
// for d, and reports the rate.
func floodSource(ctx context.Context, c *cli, addr, from string, d time.Duration) error {
	dl := net.Dialer{Timeout: 5 * time.Second}
	if from != "" {
		ip := net.ParseIP(from)
		if ip == nil {
			return usagef("--from %q: want an IP address", from)
		}
		dl.LocalAddr = &net.TCPAddr{IP: ip}
	}
	nc, err := dl.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", addr, err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	context.AfterFunc(ctx, func() { nc.SetWriteDeadline(time.Unix(1, 0)) })
	buf := make([]byte, 256<<10)
	var sent int64
	start := time.Now()
	for ctx.Err() == nil {
		n, err := nc.Write(buf)
		sent += int64(n)
		if err != nil && ctx.Err() == nil {
			return fmt.Errorf("after %d bytes to %s: %w", sent, addr, err)
		}
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(c.stdout, "sent %d bytes to %s in %.1fs: %.1f Mbit/s\n", sent, addr, secs, float64(sent)*8/secs/1e6)
	return nil
}

// floodFD runs one end of a flow on inherited socket fd: a source writes
// zeros once a byte arrives on in, a sink reads and discards. Either
// ends when the socket fails or ends (the peer closed it), or when in
// ends (the parent closed it, or died).
func floodFD(fd int, sink bool, in io.Reader) error {
	f := os.NewFile(uintptr(fd), "flow")
	if f == nil {
		return fmt.Errorf("--fd %d: no such descriptor", fd)
	}
	defer f.Close()
	// The flow ends normally when the socket does, so a descriptor that
	// was never a socket must be caught here, not by the first write.
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("--fd %d: %w", fd, err)
	}
	if st.Mode()&fs.ModeSocket == 0 {
		return fmt.Errorf("--fd %d is not a socket (mode %v)", fd, st.Mode())
	}
	start, quit := make(chan struct{}), make(chan struct{})
	go func() { // in's only reader
		if sink || readByte(in) {
			close(start)
		}
		io.Copy(io.Discard, in)
		close(quit)
		f.Close() // ends a read or write under way
	}()
	select {
	case <-start:
	case <-quit:
		return nil // ended before it began
	}
	if sink {
		io.Copy(io.Discard, f)
		return nil
	}
	buf := make([]byte, 256<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			return nil
		}
	}
}

func readByte(r io.Reader) bool {
	_, err := io.ReadFull(r, make([]byte, 1))
	return err == nil
}
