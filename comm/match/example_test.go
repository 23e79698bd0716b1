package match_test

import (
	"fmt"

	"github.com/plexus-hpc/plexus/comm/match"
)

// A receive here is a channel its owner waits on.
func Example() {
	t := match.New[string, chan string](match.Config{})

	// A message arrives before anyone asks for it: it waits as unexpected.
	t.Arrive(match.Key{Comm: 1, Source: 3, Tag: 7}, "early")

	// A receive for any source on tag 7 finds it at once.
	if m, ok, _ := t.Post(match.Key{Comm: 1, Source: match.AnySource, Tag: 7}, nil); ok {
		fmt.Println("posted and got", m)
	}

	// A receive posted first waits; the arriving message is delivered into it.
	done := make(chan string, 1)
	t.Post(match.Key{Comm: 1, Source: 3, Tag: 8}, done)
	if r, ok, _ := t.Arrive(match.Key{Comm: 1, Source: 3, Tag: 8}, "late"); ok {
		r <- "late"
	}
	fmt.Println("waited and got", <-done)

	// Arriving messages must name their source and tag.
	_, _, err := t.Arrive(match.Key{Comm: 1, Source: match.AnySource, Tag: 8}, "bad")
	fmt.Println(err != nil)
	// Output:
	// posted and got early
	// waited and got late
	// true
}
