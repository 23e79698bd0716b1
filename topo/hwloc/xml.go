package hwloc

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// xmlTopology is the <topology> element of an hwloc v2 export. Only the
// parts the model needs are decoded; everything else (memattrs, cpukinds,
// support flags, distances2hetero) is skipped by encoding/xml.
type xmlTopology struct {
	XMLName   xml.Name       `xml:"topology"`
	Version   string         `xml:"version,attr"`
	Objects   []xmlObject    `xml:"object"`
	Distances []xmlDistances `xml:"distances2"`
}

// xmlObject is one <object>. Indices stay strings so that a missing or
// malformed attribute can be reported with the object it belongs to.
type xmlObject struct {
	Type           string      `xml:"type,attr"`
	Subtype        string      `xml:"subtype,attr"`
	OSIndex        string      `xml:"os_index,attr"`
	GPIndex        string      `xml:"gp_index,attr"`
	CPUSet         string      `xml:"cpuset,attr"`
	CompleteCPUSet string      `xml:"complete_cpuset,attr"`
	AllowedCPUSet  string      `xml:"allowed_cpuset,attr"`
	NodeSet        string      `xml:"nodeset,attr"`
	AllowedNodeSet string      `xml:"allowed_nodeset,attr"`
	Depth          string      `xml:"depth,attr"`
	CacheType      string      `xml:"cache_type,attr"`
	LocalMemory    string      `xml:"local_memory,attr"`
	Infos          []xmlInfo   `xml:"info"`
	Children       []xmlObject `xml:"object"`
}

type xmlInfo struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// xmlDistances is a <distances2> matrix. Its <indexes> and <u64values>
// may each be split over several elements whose contents concatenate.
type xmlDistances struct {
	Type     string   `xml:"type,attr"`
	NbObjs   string   `xml:"nbobjs,attr"`
	Kind     string   `xml:"kind,attr"`
	Name     string   `xml:"name,attr"`
	Indexing string   `xml:"indexing,attr"`
	Indexes  []string `xml:"indexes"`
	Values   []string `xml:"u64values"`
}

// decode parses the document and checks that it is an hwloc 2.x export
// with a single root object.
func decode(r io.Reader) (*xmlTopology, error) {
	var t xmlTopology
	if err := xml.NewDecoder(r).Decode(&t); err != nil {
		return nil, fmt.Errorf("hwloc: parsing XML: %w", err)
	}
	if err := checkVersion(t.Version); err != nil {
		return nil, err
	}
	if len(t.Objects) != 1 {
		return nil, fmt.Errorf("hwloc: <topology> has %d top-level objects, want exactly one (the Machine)", len(t.Objects))
	}
	return &t, nil
}

// checkVersion accepts 2.x only: 1.x files attach NUMA nodes as ordinary
// parents and use another distances format, and 3.x may change again.
func checkVersion(v string) error {
	if v == "" {
		return fmt.Errorf("hwloc: <topology> has no version attribute (an hwloc 1.x export?); only version 2.x is supported")
	}
	if major, _, _ := strings.Cut(v, "."); major != "2" {
		return fmt.Errorf("hwloc: topology version %q is not supported; only 2.x is (export with hwloc 2.x lstopo --of xml)", v)
	}
	return nil
}

// describe names an object for error messages.
func (o *xmlObject) describe() string {
	s := o.Type
	if s == "" {
		s = "object"
	}
	if o.OSIndex != "" {
		s += " os_index=" + strconv.Quote(o.OSIndex)
	}
	if o.GPIndex != "" {
		s += " gp_index=" + strconv.Quote(o.GPIndex)
	}
	return s
}

// index parses a required non-negative index attribute.
func (o *xmlObject) index(attr, v string) (int, error) {
	if v == "" {
		return 0, fmt.Errorf("hwloc: %s has no %s attribute", o.describe(), attr)
	}
	n, err := strconv.ParseUint(v, 10, 31)
	if err != nil {
		return 0, fmt.Errorf("hwloc: %s: %s %q is not a non-negative integer", o.describe(), attr, v)
	}
	return int(n), nil
}

// bitmap parses a set attribute, falling back to alt (e.g. complete_cpuset
// for cpuset) when the first is absent.
func (o *xmlObject) bitmap(attr, v, alt string) (bitmap, error) {
	if v == "" {
		v = alt
	}
	if v == "" {
		return bitmap{}, fmt.Errorf("hwloc: %s has no %s attribute", o.describe(), attr)
	}
	b, err := parseBitmap(v)
	if err != nil {
		return bitmap{}, fmt.Errorf("hwloc: %s: %s: %w", o.describe(), attr, err)
	}
	return b, nil
}

// info returns the value of the named <info> child, trimmed because DMI
// strings often carry padding.
func (o *xmlObject) info(name string) string {
	for _, in := range o.Infos {
		if in.Name == name {
			return strings.TrimSpace(in.Value)
		}
	}
	return ""
}
