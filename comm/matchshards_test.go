package comm

import (
	"strings"
	"testing"
)

// TestMatchShardsConfig checks that Config.MatchShards is validated as a
// shard count, defaults to match's, and sizes the world's table, whose
// wildcard and exact receives then match as with the default.
func TestMatchShardsConfig(t *testing.T) {
	for _, bad := range []int{-1, 3, 1 << 17} {
		err := Config{Rank: 0, Size: 1, MatchShards: bad}.Validate()
		if err == nil || !strings.Contains(err.Error(), "MatchShards") {
			t.Errorf("MatchShards %d: err %v, want one naming MatchShards", bad, err)
		}
	}
	for _, c := range []struct{ set, want int }{{0, 256}, {1, 1}, {16, 16}} {
		ws := tcpWorlds(t, 2, Config{MatchShards: c.set})
		if got := ws[1].table.Shards(); got != c.want {
			t.Errorf("MatchShards %d: table of %d shards, want %d", c.set, got, c.want)
		}
		ctx := testCtx(t)
		for tag := range 3 {
			if err := ws[0].Send(ctx, 1, tag, []byte{byte(tag)}); err != nil {
				t.Fatal(err)
			}
		}
		buf := make([]byte, 1)
		if st, err := ws[1].Recv(ctx, 0, 2, buf); err != nil || st.Tag != 2 || buf[0] != 2 {
			t.Errorf("MatchShards %d: exact receive of tag 2: %+v %v, byte %d", c.set, st, err, buf[0])
		}
		for _, want := range []int{0, 1} { // the rest, in arrival order
			if st, err := ws[1].Recv(ctx, AnySource, AnyTag, buf); err != nil || st.Tag != want || buf[0] != byte(want) {
				t.Errorf("MatchShards %d: wildcard receive: %+v %v, byte %d, want tag %d", c.set, st, err, buf[0], want)
			}
		}
	}
}
