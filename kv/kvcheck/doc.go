// Package kvcheck records histories of a kv store's clients and checks
// them: the Sets for linearizability with porcupine (each Set returns
// the value it replaced, so a lost or reordered write shows), and the
// Gets, which replicas serve locally, for sequential consistency, with
// the slots the replicas report as the witness order.
//
//	var h kvcheck.History
//	call := h.Now()
//	prev, err := client.Set(ctx, key, value)
//	h.Add(kvcheck.Op{Client: 0, Kind: kvcheck.Set, Key: key, Value: value, Out: prev,
//		Call: call, Return: h.Now(), Slot: client.Slot(), Failed: err != nil})
//	if err := h.Check(); err != nil { ... }
//
// Values must be unique per Set (the checks tell which Set a Get read by
// its value). History is safe for concurrent use.
package kvcheck
