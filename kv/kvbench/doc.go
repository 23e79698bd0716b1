// Package kvbench measures 1Paxos and the kv store, for plexus bench kv:
//
//   - Agree: decided proposals per second and response times of an
//     in-process group (agree/group's Team: replicas polling rings, one
//     per CPU), closed-loop clients as goroutines, tree vs sequential
//     broadcast, one broadcast per decision — the setup of Smelt §5.6;
//     the row also gives the acceptor's and leader's busy time per
//     decision.
//   - KVLocal: the kv store's 80/20 mix in this process, replicas on a
//     Team, clients as goroutines talking to their replica.
//   - Job: the kv store as a job of ranks (plexus kv serve under
//     launch.Job): R replica ranks and one load rank whose clients issue
//     the 80/20 Get/Set mix, over the transport asked for.
//
// Each run gives a Row; WriteJSON, WriteTable and WriteSVG present them.
//
//	row, err := kvbench.Agree(ctx, kvbench.AgreeConfig{Replicas: 4, Clients: 2, Mode: group.Tree, Duration: time.Second})
package kvbench
