package hwloc

import (
	"bytes"
	"strings"
	"testing"
)

// TestMalformed edits small into broken documents; each must fail with an
// hwloc error naming the problem.
func TestMalformed(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{"truncated", "", "", "parsing XML"},
		{"not topology", small, "<machine/>", "parsing XML"},
		{"no version", ` version="2.0"`, "", "no version attribute"},
		{"version 1", `version="2.0"`, `version="1.11"`, `version "1.11" is not supported`},
		{"version 3", `version="2.0"`, `version="3.0"`, `version "3.0" is not supported`},
		{"two roots", "  <distances2 type=\"NUMANode\" nbobjs=\"2\" kind=\"9\"", "<object type=\"Machine\"/><distances2 type=\"NUMANode\" nbobjs=\"2\" kind=\"9\"", "2 top-level objects"},
		{"no type", `type="Core" os_index="0" cpuset="0x00000004"`, `os_index="0" cpuset="0x00000004"`, "no type attribute"},
		{"PU no os_index", `type="PU" os_index="3"`, `type="PU"`, "PU gp_index=\"14\" has no os_index"},
		{"PU negative", `type="PU" os_index="3"`, `type="PU" os_index="-3"`, `os_index "-3" is not a non-negative integer`},
		{"PU twice", `type="PU" os_index="3"`, `type="PU" os_index="2"`, "PU os_index 2 appears twice"},
		{"node twice", `type="NUMANode" os_index="1"`, `type="NUMANode" os_index="0"`, "NUMANode os_index 0 appears twice"},
		{"node no os_index", `type="NUMANode" os_index="1"`, `type="NUMANode"`, "has no os_index"},
		{"node bad cpuset", `cpuset="0x0000000c" nodeset="0x00000002" gp_index="9"`, `cpuset="0x0000000c,0xq" nodeset="0x00000002" gp_index="9"`, `NUMANode os_index="1" gp_index="9": cpuset: bitmap "0x0000000c,0xq": word 2: "0xq"`},
		{"node no cpuset", `cpuset="0x0000000c" nodeset="0x00000002" gp_index="9"`, `nodeset="0x00000002" gp_index="9"`, "has no cpuset attribute"},
		{"node bad memory", `local_memory="2048"`, `local_memory="2k"`, `local_memory "2k" is not a byte count`},
		{"PU without node", `cpuset="0x0000000c" nodeset="0x00000002" gp_index="9"`, `cpuset="0x0" nodeset="0x00000002" gp_index="9"`, "no NUMANode cpuset contains PU 2"},
		{"bad allowed cpuset", `allowed_cpuset="0x0000000f"`, `allowed_cpuset="0x0000000f;"`, "allowed_cpuset: bitmap"},
		{"bad allowed nodeset", `allowed_nodeset="0x00000003"`, `allowed_nodeset="0x123456789"`, "allowed_nodeset: bitmap"},
		{"nothing allowed", `allowed_cpuset="0x0000000f"`, `allowed_cpuset="0x0"`, "no allowed PU among 4"},
		{"cache depth", `depth="2" cache_type="0"`, `depth="two" cache_type="0"`, `depth "two" is not a non-negative integer`},
		{"dist too few values", `22 10</u64values>`, `22</u64values>`, "has 3 values, want 2×2 = 4"},
		{"dist too many values", `22 10</u64values>`, `22 10 10</u64values>`, "has 5 values, want 2×2 = 4"},
		{"dist bad value", `10 21 </u64values>`, `10 -21 </u64values>`, `u64values: "-21" is not an unsigned integer`},
		{"dist nbobjs", `nbobjs="2" kind="5"`, `nbobjs="3" kind="5"`, "lists 2 indexes, want nbobjs=3"},
		{"dist nbobjs missing", `nbobjs="2" kind="5"`, `kind="5"`, `nbobjs "" is not a positive integer`},
		{"dist unknown index", `>9 3</indexes>`, `>9 4</indexes>`, "index 4 (gp) names no NUMANode"},
		{"dist repeated index", `>9 3</indexes>`, `>9 9</indexes>`, "index 9 (gp) names no NUMANode or repeats one"},
		{"dist bad index", `>9 3</indexes>`, `>9 x</indexes>`, `indexes: "x" is not an unsigned integer`},
		{"dist indexing", `indexing="gp"`, `indexing="logical"`, `unknown indexing "logical"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := small[:len(small)/2]
			if tt.old != "" {
				if !strings.Contains(small, tt.old) {
					t.Fatalf("test edit %q does not match", tt.old)
				}
				doc = strings.Replace(small, tt.old, tt.new, 1)
			}
			m, err := Read(strings.NewReader(doc), Options{})
			if err == nil {
				t.Fatalf("no error; model %+v", m)
			}
			if !strings.HasPrefix(err.Error(), "hwloc: ") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want hwloc: ...%s...", err, tt.want)
			}
		})
	}
}

func TestReadFileMissing(t *testing.T) {
	if _, err := ReadFile("no/such/file.xml", Options{}); err == nil || !strings.Contains(err.Error(), "no/such/file.xml") {
		t.Errorf("error %v does not name the file", err)
	}
}

// FuzzRead checks that no input panics and that every accepted input
// yields a valid model.
func FuzzRead(f *testing.F) {
	f.Add([]byte(small))
	f.Add([]byte(flat))
	f.Add([]byte(small[:len(small)/3]))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opt := range []Options{{}, {IncludeDisallowed: true}} {
			m, err := Read(bytes.NewReader(data), opt)
			if err != nil {
				if m != nil || !strings.HasPrefix(err.Error(), "hwloc: ") {
					t.Fatalf("error %q with model %v", err, m)
				}
				continue
			}
			if err := m.Validate(); err != nil {
				t.Fatalf("accepted model does not validate: %v", err)
			}
		}
	})
}
