package hwloc

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/topo"
)

const dataDir = "../../data/hwloc"

// summary is one line of data/hwloc/SUMMARY.txt: object counts of the
// complete topology (disallowed objects included) and the size of the
// NUMANode distances2 matrix, 0 when the file has none.
type summary struct {
	pkg, numa, core, pu, l2, l3 int
	numaDist                    int
}

var (
	countRE = regexp.MustCompile(`\b(pkg|numa|core|pu|L2|L3)=(\d+)`)
	distRE  = regexp.MustCompile(`distances2\[(\d+)x\d+[^\]]*\bNUMANode\]`)
)

func readSummary(t *testing.T) map[string]summary {
	t.Helper()
	f, err := os.Open(filepath.Join(dataDir, "SUMMARY.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]summary{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), " | ")
		if !ok {
			continue
		}
		c := map[string]int{}
		for _, m := range countRE.FindAllStringSubmatch(rest, -1) {
			c[m[1]], _ = strconv.Atoi(m[2])
		}
		s := summary{pkg: c["pkg"], numa: c["numa"], core: c["core"], pu: c["pu"], l2: c["L2"], l3: c["L3"]}
		if m := distRE.FindStringSubmatch(rest); m != nil {
			s.numaDist, _ = strconv.Atoi(m[1])
		}
		out[name] = s
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// xmlFiles lists every .xml file under data/hwloc, relative to it.
func xmlFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dataDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".xml") {
			rel, _ := filepath.Rel(dataDir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// restricted names the files whose allowed sets are smaller than the
// complete topology; for the others both modes must give SUMMARY's counts.
var restricted = map[string]bool{"64intel64-3g2n+2n-irregulargroups+pci.xml": true}

// TestDataFiles loads every file in both modes. SUMMARY counts objects of
// the complete topology, so IncludeDisallowed must match it everywhere.
func TestDataFiles(t *testing.T) {
	sum := readSummary(t)
	files := xmlFiles(t)
	if len(files) != len(sum) {
		t.Errorf("%d xml files but %d SUMMARY lines", len(files), len(sum))
	}
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			want, ok := sum[name]
			if !ok {
				t.Fatalf("%s missing from SUMMARY.txt", name)
			}
			all := load(t, name, Options{IncludeDisallowed: true})
			checkCounts(t, all, want)
			checkDistance(t, all, want.numaDist)
			if !restricted[name] {
				def := load(t, name, Options{})
				checkCounts(t, def, want)
				checkDistance(t, def, want.numaDist)
			}
		})
	}
}

func load(t *testing.T, name string, opt Options) *topo.Model {
	t.Helper()
	m, err := ReadFile(filepath.Join(dataDir, name), opt)
	if err != nil {
		t.Fatal(err)
	}
	if m.Send != nil || m.Recv != nil || m.Provenance.Source != "hwloc" {
		t.Errorf("costs %v/%v, source %q; want no costs, source hwloc", m.Send, m.Recv, m.Provenance.Source)
	}
	if want := strings.TrimSuffix(filepath.Base(name), ".xml"); m.Name != want {
		t.Errorf("Name = %q, want %q", m.Name, want)
	}
	return m
}

func checkCounts(t *testing.T, m *topo.Model, want summary) {
	t.Helper()
	pkg, core, numa := m.Counts()
	got := summary{pkg: pkg, numa: numa, core: core, pu: m.N(), l2: distinct(m, 2), l3: distinct(m, 3), numaDist: want.numaDist}
	if got != want {
		t.Errorf("counts %+v, want %+v", got, want)
	}
	for i, c := range m.CPUs {
		if i > 0 && m.CPUs[i-1].ID >= c.ID {
			t.Fatalf("CPUs not sorted by ID at %d", i)
		}
	}
}

// distinct counts the L2 (level 2) or L3 ids in use, ignoring -1.
func distinct(m *topo.Model, level int) int {
	ids := map[int]bool{}
	for _, c := range m.CPUs {
		id := c.L2
		if level == 3 {
			id = c.L3
		}
		if id >= 0 {
			ids[id] = true
		}
	}
	return len(ids)
}

// checkDistance wants an n×n matrix (none when n is 0) whose diagonal is
// 10 and the smallest entry of its row.
func checkDistance(t *testing.T, m *topo.Model, n int) {
	t.Helper()
	if n == 0 {
		if m.Distance != nil {
			t.Errorf("unexpected distance matrix %v", m.Distance)
		}
		return
	}
	if len(m.Distance) != n || len(m.Nodes) != n {
		t.Fatalf("distance matrix has %d rows for %d nodes, want %d", len(m.Distance), len(m.Nodes), n)
	}
	for i, row := range m.Distance {
		if row[i] != 10 {
			t.Errorf("Distance[%d][%d] = %v, want 10", i, i, row[i])
		}
		for j, v := range row {
			if j != i && v <= row[i] {
				t.Errorf("Distance[%d][%d] = %v not above diagonal %v", i, j, v, row[i])
			}
		}
	}
}
