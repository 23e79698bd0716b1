package launch

import (
	"bytes"
	"strings"
	"sync"
	"testing"
)

func TestLineWriter(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	w := newLineWriter(&mu, &out, 7)
	for _, p := range []string{"hel", "lo\nwor", "ld\n\n", "tail"} {
		w.Write([]byte(p))
	}
	w.Close()
	if want := "[7] hello\n[7] world\n[7] \n[7] tail\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestLineWriterLongLine(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	w := newLineWriter(&mu, &out, 0)
	w.Write([]byte(strings.Repeat("x", maxLine+10) + "\n"))
	w.Close()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || len(lines[0]) != len("[0] ")+maxLine || lines[1] != "[0] "+strings.Repeat("x", 10) {
		t.Errorf("long line split into %d lines of lengths %d...", len(lines), len(lines[0]))
	}
}

// TestLineWriterConcurrent checks that lines of writers sharing a mutex
// never mix: every output line is one whole input line.
func TestLineWriterConcurrent(t *testing.T) {
	var mu sync.Mutex
	var out bytes.Buffer
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Go(func() {
			w := newLineWriter(&mu, &out, r)
			for i := range 200 {
				// Split each line over two writes to tempt interleaving.
				w.Write([]byte(strings.Repeat(string(rune('a'+r)), 10+i%7)))
				w.Write([]byte(strings.Repeat(string(rune('a'+r)), 5) + "\n"))
			}
			w.Close()
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("%d lines, want 800", len(lines))
	}
	for _, l := range lines {
		var r int
		var body string
		if n, _ := parsePrefixed(l, &r, &body); n != 2 || strings.Trim(body, string(rune('a'+r))) != "" {
			t.Fatalf("mixed line %q", l)
		}
	}
}

func parsePrefixed(line string, r *int, body *string) (int, error) {
	prefix, rest, ok := strings.Cut(line, "] ")
	if !ok || len(prefix) != 2 || prefix[0] != '[' {
		return 0, nil
	}
	*r, *body = int(prefix[1]-'0'), rest
	return 2, nil
}
