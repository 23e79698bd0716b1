package frame

import "testing"

// TestKindNumbers pins the kinds' numbers, which are on the wire
// (docs/wire-format.md) and in the shared-memory rings (docs/shm-format.md).
func TestKindNumbers(t *testing.T) {
	want := []struct {
		k    Kind
		n    uint8
		name string
		user bool
	}{
		{Eager, 1, "Eager", true}, {RTS, 2, "RTS", true}, {CTS, 3, "CTS", true},
		{Data, 4, "Data", true}, {Credit, 5, "Credit", true},
		{Hello, 6, "Hello", false}, {Auth, 7, "Auth", false},
		{Bye, 8, "Bye", false}, {Ping, 9, "Ping", false},
	}
	for _, w := range want {
		if uint8(w.k) != w.n || w.k.String() != w.name || !w.k.Valid() || w.k.User() != w.user {
			t.Errorf("kind %d: %s, valid %t, user %t; want %d, %s, valid, user %t",
				uint8(w.k), w.k, w.k.Valid(), w.k.User(), w.n, w.name, w.user)
		}
	}
}

func TestUnknownKinds(t *testing.T) {
	for _, k := range []Kind{0, Ping + 1, 200} {
		if k.Valid() || k.User() {
			t.Errorf("kind %d is valid or a user kind", uint8(k))
		}
	}
	if Kind(0).String() != "Kind(0)" || Kind(200).String() != "Kind(200)" {
		t.Errorf("unknown kinds print as %s and %s", Kind(0), Kind(200))
	}
}
