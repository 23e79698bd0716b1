package topo

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// withLatency is twoNode with a symmetric latency matrix.
func withLatency() *Model {
	m := twoNode()
	m.Latency = NewCosts(m.N(), false)
	for i := range m.N() {
		for j := range m.N() {
			if i != j {
				m.Latency.Mean[i][j] = float64(100 + i + j)
			}
		}
	}
	return m
}

func TestLatencyRoundTrip(t *testing.T) {
	m := withLatency()
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"latency"`) {
		t.Fatalf("saved model has no latency field")
	}
	got, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	m.Format = FormatVersion
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip changed the latency: got %v, want %v", got.Latency, m.Latency)
	}
}

// TestLatencyOmitted checks that a model without latency saves as before:
// no "latency" key, so older readers and golden files are unaffected.
func TestLatencyOmitted(t *testing.T) {
	var buf bytes.Buffer
	if err := twoNode().Save(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "latency") {
		t.Errorf("a model without latency saved a latency field")
	}
}

func TestValidateLatency(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(m *Model)
		msg   string
	}{
		{"NaN", func(m *Model) { m.Latency.Mean[0][1] = math.NaN() }, "latency.mean[0][1] = NaN"},
		{"Inf", func(m *Model) { m.Latency.Mean[4][2] = math.Inf(1) }, "latency.mean[4][2] = +Inf"},
		{"negative", func(m *Model) { m.Latency.Mean[1][6] = -3 }, "latency.mean[1][6] = -3"},
		{"diagonal", func(m *Model) { m.Latency.Mean[5][5] = 2 }, "latency.mean[5][5] = 2, want 0 on the diagonal"},
		{"rows", func(m *Model) { m.Latency.Mean = m.Latency.Mean[:7] }, "latency.mean has 7 rows, want 8"},
		{"row", func(m *Model) { m.Latency.Mean[3] = m.Latency.Mean[3][:2] }, "latency.mean row 3 has 2 entries, want 8"},
		{"sd", func(m *Model) { m.Latency.SD = NewCosts(8, false).Mean; m.Latency.SD[2][1] = -1 }, "latency.sd[2][1] = -1"},
		{"no costs", func(m *Model) { m.Send, m.Recv = nil, nil }, "latency needs send and recv costs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := withLatency()
			tc.spoil(m)
			err := m.Validate()
			if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Validate: %v; want ErrInvalid with %q", err, tc.msg)
			}
		})
	}
	if err := withLatency().Validate(); err != nil {
		t.Errorf("valid model with latency: %v", err)
	}
}
