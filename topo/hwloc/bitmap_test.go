package hwloc

import (
	"slices"
	"strings"
	"testing"
)

func TestParseBitmap(t *testing.T) {
	tests := []struct {
		in       string
		bits     []int
		infinite bool
	}{
		{"0x0", nil, false},
		{"0x00000001", []int{0}, false},
		{"0x0000000f", []int{0, 1, 2, 3}, false},
		{"0x80000000", []int{31}, false},
		{"0x00000001,0x00000000", []int{32}, false},
		{"0x000000ff,0x0", []int{32, 33, 34, 35, 36, 37, 38, 39}, false},
		{"0x00000001,,,0x00000001", []int{0, 96}, false},
		{"0x1,,0x2", []int{1, 64}, false},
		{"ff", []int{0, 1, 2, 3, 4, 5, 6, 7}, false}, // hwloc's reader takes words without 0x
		{"0X10", []int{4}, false},
		{" 0x3 ", []int{0, 1}, false},
		{"0xf...f", nil, true},
		{"0xf...f,0x00000003", []int{0, 1}, true},
		{"0xf...f,0x0,0x1", []int{0}, true},
		{"0xf...f,", nil, true}, // one empty (zero) word, then all set
	}
	for _, tt := range tests {
		b, err := parseBitmap(tt.in)
		if err != nil {
			t.Errorf("parseBitmap(%q): %v", tt.in, err)
			continue
		}
		if got := b.indexes(); !slices.Equal(got, tt.bits) || b.infinite != tt.infinite {
			t.Errorf("parseBitmap(%q) = %v infinite=%v, want %v infinite=%v", tt.in, got, b.infinite, tt.bits, tt.infinite)
		}
	}
}

func TestParseBitmapErrors(t *testing.T) {
	for _, in := range []string{"", "  ", "0x", "0xg", "0x1,0xz", "0x100000000", "-1", "+1", "0x1_0", "0xf...f0x1", "0xf...fx", "1 2", "0x1;0x2"} {
		if b, err := parseBitmap(in); err == nil {
			t.Errorf("parseBitmap(%q) = %+v, want error", in, b)
		} else if !strings.Contains(err.Error(), "bitmap") && !strings.Contains(err.Error(), "hex") {
			t.Errorf("parseBitmap(%q): error %q does not say what was wrong", in, err)
		}
	}
}

func TestBitmapHas(t *testing.T) {
	b, err := parseBitmap("0xf...f,0x00000001,0x80000000")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range map[int]bool{-1: false, 0: false, 31: true, 32: true, 33: false, 63: false, 64: true, 1000: true} {
		if b.has(i) != want {
			t.Errorf("has(%d) = %v, want %v", i, !want, want)
		}
	}
	if b.count() != fullBitmap.count() {
		t.Errorf("infinite bitmap count %d, want the maximum", b.count())
	}
	if f, _ := parseBitmap("0x5,0x3"); f.count() != 4 || f.has(64) {
		t.Errorf("finite bitmap: count %d has(64) %v", f.count(), f.has(64))
	}
}
