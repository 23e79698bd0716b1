package am

import "sync/atomic"

// Stats counts an engine's outgoing packets since New.
type Stats struct {
	Packets  uint64 // packets sent (to this rank itself included)
	Messages uint64 // messages in them: Posts, Calls and replies
	Bytes    uint64 // bytes in them, message headers included

	SizeFlushes     uint64 // buffers sent because they reached Config.FlushBytes
	AgeFlushes      uint64 // because their oldest message reached Config.FlushAge
	IdleFlushes     uint64 // because the sender was idle
	ExplicitFlushes uint64 // by Flush or Close

	// RemotePackets, RemoteMessages and RemoteBytes count the part of
	// Packets, Messages and Bytes sent to ranks on other hosts: what
	// Config.NodeAggregation combines. A world that does not tell hosts
	// apart counts every other rank as remote.
	RemotePackets, RemoteMessages, RemoteBytes uint64
}

// RemoteMessagesPerPacket returns the mean number of messages in a
// packet to another host.
func (s Stats) RemoteMessagesPerPacket() float64 { return ratio(s.RemoteMessages, s.RemotePackets) }

// MessagesPerPacket returns the mean number of messages in a packet.
func (s Stats) MessagesPerPacket() float64 { return ratio(s.Messages, s.Packets) }

// BytesPerPacket returns the mean size of a packet.
func (s Stats) BytesPerPacket() float64 { return ratio(s.Bytes, s.Packets) }

func ratio(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// counters is Stats kept with atomics, so that outboxes count without a
// shared lock.
type counters struct {
	packets, messages, bytes atomic.Uint64
	causes                   [causeFlush + 1]atomic.Uint64
	remote                   [3]atomic.Uint64 // packets, messages, bytes
}

func (c *counters) count(why cause, bytes, messages int, remote bool) {
	c.packets.Add(1)
	c.messages.Add(uint64(messages))
	c.bytes.Add(uint64(bytes))
	c.causes[why].Add(1)
	if remote {
		c.remote[0].Add(1)
		c.remote[1].Add(uint64(messages))
		c.remote[2].Add(uint64(bytes))
	}
}

// Stats returns the engine's counters.
func (e *Engine) Stats() Stats {
	c := &e.stats
	return Stats{
		Packets: c.packets.Load(), Messages: c.messages.Load(), Bytes: c.bytes.Load(),
		SizeFlushes: c.causes[causeSize].Load(), AgeFlushes: c.causes[causeAge].Load(),
		IdleFlushes: c.causes[causeIdle].Load(), ExplicitFlushes: c.causes[causeFlush].Load(),
		RemotePackets: c.remote[0].Load(), RemoteMessages: c.remote[1].Load(), RemoteBytes: c.remote[2].Load(),
	}
}
